// A remote's stdout cut into lines, with a cap on what one line may hold. readline keeps a line
// that never ends whole: a remote that printed its first line and then 200 MB without a newline
// took the local supervisor from 74 to 306 MB, and most of it stayed after `fleet rm` (issue 26,
// "Bounded reads"). Here a line past the cap ends the splitter: the caller drops the link.

/** What one line from a remote may hold: a `resync` of a few hundred agents is well under 1 MiB. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

export class LineSplitter {
  /** The start of the line being read, copied out of its chunks (never a view that pins a chunk). */
  private parts: Buffer[] = [];
  private held = 0;
  private overflowed = false;

  constructor(
    private readonly onLine: (line: string) => void,
    /** Once, when a line grows past `max` bytes; nothing is read after it. */
    private readonly onOverflow: (max: number) => void,
    private readonly max: number = MAX_LINE_BYTES,
  ) {}

  get over(): boolean {
    return this.overflowed;
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (!this.overflowed) {
      const nl = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, nl < 0 ? chunk.length : nl);
      if (this.held + piece.length > this.max) return this.overflow();
      if (nl < 0) {
        if (piece.length > 0) {
          this.parts.push(Buffer.from(piece));
          this.held += piece.length;
        }
        return;
      }
      const line = this.held === 0 ? piece : Buffer.concat([...this.parts, piece]);
      this.parts = [];
      this.held = 0;
      start = nl + 1;
      this.emit(line);
    }
  }

  /** The stream ended: a last line without its newline is still a line (as readline has it). */
  end(): void {
    if (this.overflowed || this.held === 0) return;
    const line = Buffer.concat(this.parts);
    this.parts = [];
    this.held = 0;
    this.emit(line);
  }

  private emit(line: Buffer): void {
    const n = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length;
    this.onLine(line.toString('utf8', 0, n));
  }

  private overflow(): void {
    this.overflowed = true;
    this.parts = [];
    this.held = 0;
    this.onOverflow(this.max);
  }
}
