// A program's output kept up to a bound, the rest only counted: a 19 MB diff held whole (and
// then as rows) took the panel past 1 GB. The panel shows the first MAX_DIFF_LINES lines (at
// most MAX_DIFF_BYTES) and "… N more lines" for what it did not keep. Pure: chunks in, text out.

/** Lines of a diff the panel keeps. */
export const MAX_DIFF_LINES = 20_000;
/** Bytes of a diff the panel keeps (a diff of a few very long lines). */
export const MAX_DIFF_BYTES = 4 * 1024 * 1024;

export interface BoundedText {
  text: string;
  /** Lines past what was kept (a line cut short counts as kept). */
  more: number;
}

function newlines(b: Buffer): number {
  let n = 0;
  for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) n++;
  return n;
}

export class TextCap {
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private keptNewlines = 0;
  private keptLast = 10;
  private full = false;
  private allNewlines = 0;
  private last = 10;

  constructor(
    private readonly maxLines = MAX_DIFF_LINES,
    private readonly maxBytes = MAX_DIFF_BYTES,
  ) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.allNewlines += newlines(chunk);
    this.last = chunk[chunk.length - 1]!;
    if (this.full) return;
    // up to the end of the maxLines-th line, and no more than the bytes left
    let end = chunk.length;
    let left = this.maxLines - this.keptNewlines;
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) {
      if (--left === 0) {
        end = i + 1;
        break;
      }
    }
    end = Math.min(end, this.maxBytes - this.keptBytes);
    const part = chunk.subarray(0, end);
    if (part.length > 0) {
      this.kept.push(Buffer.from(part));
      this.keptBytes += part.length;
      this.keptNewlines += newlines(part);
      this.keptLast = part[part.length - 1]!;
    }
    if (end < chunk.length || this.keptNewlines >= this.maxLines || this.keptBytes >= this.maxBytes) this.full = true;
  }

  result(): BoundedText {
    const all = this.allNewlines + (this.last === 10 ? 0 : 1);
    const kept = this.keptNewlines + (this.keptLast === 10 ? 0 : 1);
    return { text: Buffer.concat(this.kept).toString('utf8'), more: all - kept };
  }
}
