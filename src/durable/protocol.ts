/** The calls and verdicts between isolates and objects are a stored format: src/stored/wire-calls.ts (docs/stored-formats.md). */
export * from "../stored/wire-calls.ts";
