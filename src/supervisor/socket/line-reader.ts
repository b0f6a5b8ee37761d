// Splits a byte stream into `\n`-terminated lines without ever holding more than the limit.
// Bytes are counted before decoding, so a line that is too long is refused as soon as it
// crosses the limit — the rest of it is never buffered.
//
// A line that arrives whole in one chunk is decoded from the chunk itself. Only a partial line
// is held, in one buffer of its own that grows by doubling (never in many small chunks: a
// client sending a byte at a time would otherwise cost an object per byte). What that buffer
// reserves is taken from a ByteBudget shared by every connection, and given back as soon as the
// line is complete or the reader is released.
//
// The buffer is a resizable ArrayBuffer: its memory is committed as it grows and returned to the
// system by resize(0) the moment the line is done, not whenever the garbage collector next
// runs (an idle supervisor may not collect for a long time).

export type LineEvent =
  | { kind: 'line'; text: string }
  | { kind: 'invalid_utf8' }
  | { kind: 'too_long' }
  /** The shared budget for partial lines is spent: this line cannot be held. */
  | { kind: 'over_budget' };

const NL = 0x0a;
const FIRST_CAPACITY = 4096;

interface ResizableArrayBuffer extends ArrayBuffer {
  resize(byteLength: number): void;
}

// ES2024 (Node ≥ 20): `new ArrayBuffer(0, { maxByteLength })` reserves address space only.
const Resizable = ArrayBuffer as unknown as new (byteLength: number, opts: { maxByteLength: number }) => ResizableArrayBuffer;

/** Bytes that all partial lines together may reserve. */
export class ByteBudget {
  private inUse = 0;

  constructor(readonly limit: number) {}

  get used(): number {
    return this.inUse;
  }

  take(n: number): boolean {
    if (this.inUse + n > this.limit) return false;
    this.inUse += n;
    return true;
  }

  give(n: number): void {
    this.inUse = Math.max(0, this.inUse - n);
  }
}

export class LineReader {
  private store: ResizableArrayBuffer | null = null;
  private size = 0;
  private dead = false;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  constructor(
    private readonly maxLineBytes: number,
    private readonly budget: ByteBudget = new ByteBudget(Number.MAX_SAFE_INTEGER),
  ) {}

  /** Bytes held for the line being assembled. */
  get buffered(): number {
    return this.size;
  }

  /** Bytes reserved from the budget (the partial line's buffer). */
  get reserved(): number {
    return this.store?.byteLength ?? 0;
  }

  /**
   * Feeds a chunk; returns the events it completes. After `too_long` or `over_budget` the
   * reader is dead: it holds nothing and returns nothing more (the caller closes the connection).
   */
  push(chunk: Buffer): LineEvent[] {
    if (this.dead) return [];
    const out: LineEvent[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NL, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      // The newline itself does not count against the limit; a line of exactly max bytes is fine.
      if (this.size + piece.length > this.maxLineBytes) {
        this.kill();
        out.push({ kind: 'too_long' });
        return out;
      }
      if (nl === -1) {
        if (piece.length > 0 && !this.hold(piece)) {
          this.kill();
          out.push({ kind: 'over_budget' });
          return out;
        }
        break;
      }
      let whole = piece;
      if (this.size > 0) {
        // decoded where it is held; only when the budget cannot grow for the last piece, a copy
        whole = this.hold(piece) ? Buffer.from(this.store!, 0, this.size) : Buffer.concat([Buffer.from(this.store!, 0, this.size), piece]);
      }
      start = nl + 1;
      let text: string | null;
      try {
        text = this.decoder.decode(whole);
      } catch {
        text = null;
      }
      this.release();
      if (text === null) {
        out.push({ kind: 'invalid_utf8' });
        continue;
      }
      if (text.endsWith('\r')) text = text.slice(0, -1);
      out.push({ kind: 'line', text });
    }
    return out;
  }

  /** Drops the partial line and gives its reservation back. The reader stays usable. */
  release(): void {
    if (this.store) {
      this.budget.give(this.store.byteLength);
      this.store.resize(0);
    }
    this.store = null;
    this.size = 0;
  }

  private kill(): void {
    this.release();
    this.dead = true;
  }

  /** Appends to the partial line (a copy: the caller's chunk may be a slice of a pooled buffer). */
  private hold(piece: Buffer): boolean {
    const need = this.size + piece.length;
    const cap = this.store?.byteLength ?? 0;
    if (need > cap) {
      const next = Math.min(this.maxLineBytes, Math.max(FIRST_CAPACITY, cap * 2, need));
      if (!this.budget.take(next - cap)) return false;
      this.store ??= new Resizable(0, { maxByteLength: Math.max(this.maxLineBytes, FIRST_CAPACITY) });
      this.store.resize(next);
    }
    piece.copy(Buffer.from(this.store!, this.size, piece.length));
    this.size = need;
    return true;
  }
}
