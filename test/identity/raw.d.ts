/** A file imported as its text (Vite's `?raw`), for the tests that run the docs' examples. */
declare module "*?raw" {
  const text: string;
  export default text;
}
