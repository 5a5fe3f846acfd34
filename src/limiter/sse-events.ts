/**
 * Server-sent events cut out of a byte stream as it passes (docs/llm.md,
 * "Usage"): only the text of the current line and event is kept, each
 * at most `maxChars`, so a stream of any length is read in bounded memory.
 * The bytes themselves are never held: the caller hands each chunk on.
 */

/**
 * Feeds `onData` the data of each event (its `data:` lines joined with
 * "\n", as EventSource does); other fields and comments are passed over.
 *
 * @example
 * const events = new SseEvents((data) => seen.push(data), 1 << 20);
 * events.push(bytes('data: {"a":1}\n\nda'));
 * events.push(bytes('ta: [DONE]\n\n')); // seen: ['{"a":1}', "[DONE]"]
 */
export class SseEvents {
  private readonly onData: (data: string) => void;
  private readonly maxChars: number;
  private readonly decoder = new TextDecoder();
  private line = "";
  private data: string[] = [];
  private dataChars = 0;
  /** The current line went past `maxChars`: dropped up to its end. */
  private lineOverflow = false;
  /** The current event went past `maxChars` (or one of its lines did): dropped up to its blank line. */
  private eventOverflow = false;
  private endedOnCr = false;

  constructor(onData: (data: string) => void, maxChars: number) {
    this.onData = onData;
    this.maxChars = maxChars;
  }

  /**
   * The next chunk of the stream's bytes. A character split across chunks
   * is decoded whole; at the stream's end nothing is left to read: a last
   * event without its blank line is not an event (EventSource drops it too).
   */
  push(chunk: Uint8Array): void {
    this.text(this.decoder.decode(chunk, { stream: true }));
  }

  private text(text: string): void {
    // An empty chunk (or one holding only part of a character) changes nothing: a "\r" before it still waits for its "\n".
    if (text === "") return;
    let start = 0;
    // "\r\n" split across two chunks is one line end.
    if (this.endedOnCr && text.charCodeAt(0) === 0x0a) start = 1;
    this.endedOnCr = false;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x0a && c !== 0x0d) continue;
      this.append(text.slice(start, i));
      this.endLine();
      if (c === 0x0d) {
        if (i + 1 === text.length) this.endedOnCr = true;
        else if (text.charCodeAt(i + 1) === 0x0a) i++;
      }
      start = i + 1;
    }
    this.append(text.slice(start));
  }

  private append(part: string): void {
    if (this.lineOverflow || part === "") return;
    if (this.line.length + part.length > this.maxChars) {
      this.lineOverflow = true;
      this.line = "";
      return;
    }
    this.line += part;
  }

  private endLine(): void {
    const line = this.line;
    this.line = "";
    if (this.lineOverflow) {
      this.lineOverflow = false;
      this.eventOverflow = true;
      return;
    }
    if (line === "") {
      // An event too large to keep ends unread.
      if (!this.eventOverflow) this.dispatch();
      this.eventOverflow = false;
      this.data = [];
      this.dataChars = 0;
      return;
    }
    if (!line.startsWith("data")) return;
    const value = line.length === 4 ? "" : line[4] === ":" ? line.slice(line[5] === " " ? 6 : 5) : undefined;
    if (value === undefined) return;
    this.dataChars += value.length + 1;
    if (this.dataChars > this.maxChars) {
      this.eventOverflow = true;
      return;
    }
    this.data.push(value);
  }

  private dispatch(): void {
    if (this.data.length > 0) this.onData(this.data.join("\n"));
  }
}
