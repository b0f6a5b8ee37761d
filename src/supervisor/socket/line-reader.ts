// Splits a byte stream into `\n`-terminated lines without ever holding more than the limit.
// Bytes are counted before decoding, so a line that is too long is refused as soon as it
// crosses the limit — the rest of it is never buffered.

export type LineEvent =
  | { kind: 'line'; text: string }
  | { kind: 'invalid_utf8' }
  | { kind: 'too_long' };

const NL = 0x0a;

export class LineReader {
  private chunks: Buffer[] = [];
  private size = 0;
  private overflowed = false;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  constructor(private readonly maxLineBytes: number) {}

  /** Bytes held for the line being assembled. */
  get buffered(): number {
    return this.size;
  }

  /**
   * Feeds a chunk; returns the events it completes. After `too_long` the reader is dead:
   * it returns nothing more (the caller closes the connection).
   */
  push(chunk: Buffer): LineEvent[] {
    if (this.overflowed) return [];
    const out: LineEvent[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NL, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      // The newline itself does not count against the limit; a line of exactly max bytes is fine.
      if (this.size + piece.length > this.maxLineBytes) {
        this.overflowed = true;
        this.chunks = [];
        this.size = 0;
        out.push({ kind: 'too_long' });
        return out;
      }
      if (nl === -1) {
        if (piece.length > 0) {
          // Copy: the caller's chunk may be a slice of a pooled buffer.
          this.chunks.push(Buffer.from(piece));
          this.size += piece.length;
        }
        break;
      }
      const whole = this.chunks.length === 0 ? piece : Buffer.concat([...this.chunks, piece]);
      this.chunks = [];
      this.size = 0;
      start = nl + 1;
      let text: string;
      try {
        text = this.decoder.decode(whole);
      } catch {
        out.push({ kind: 'invalid_utf8' });
        continue;
      }
      if (text.endsWith('\r')) text = text.slice(0, -1);
      out.push({ kind: 'line', text });
    }
    return out;
  }
}
