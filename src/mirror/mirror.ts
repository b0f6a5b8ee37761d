// One headless terminal per agent pane: seeded from a tmux snapshot, then fed the pane's
// %output bytes. Detection reads `snapshot()`; `nerdr read` uses `renderText`/`renderAnsi`.

import type { ScreenSnapshot } from '../types.js';
import { OscScanner } from './osc.js';
import { MIRROR_SCROLLBACK, type SeedResult } from './seed.js';
import { useTmuxWidths } from './wcwidth.js';
import { Terminal, type IBufferCell, type IBufferLine } from './xterm.js';

export interface MirrorOptions {
  /** Lines kept above the screen (for `renderText(lines)`); default 100. Detection needs none. */
  scrollback?: number;
  /**
   * Render only the rows xterm says changed (default true). false renders every row on every
   * change: the tests compare the two.
   */
  incremental?: boolean;
}

/** The part of xterm's parser that tells its renderer which rows changed (not in the public API). */
interface RowEvents {
  onRequestRefreshRows(fn: (e: { start: number; end: number } | undefined) => void): unknown;
  onRequestReset(fn: () => void): unknown;
}

/** xterm's own line behind a public IBufferLine (not in the public API): 3 words a cell, the first its content. */
interface RawLine {
  length: number;
  _data: Uint32Array;
  _combined: Record<number, string>;
}

/** xterm's line behind `line`, or null when it is not what RawLine says (another xterm). */
function rawLine(line: IBufferLine | undefined): RawLine | null {
  const raw = (line as unknown as { _line?: Partial<RawLine> } | undefined)?._line;
  return raw && raw._data instanceof Uint32Array && typeof raw._combined === 'object' && typeof raw.length === 'number' ? (raw as RawLine) : null;
}

/**
 * Whether `line` still reads as `prev` (a row built by translateToString(false), the Kitty
 * placeholder a space), compared cell by cell without building the string: xterm marks every row
 * between the cursor and the output dirty, and most of them did not change.
 */
function sameRow(line: RawLine, prev: string): boolean {
  const data = line._data;
  let p = 0;
  for (let t = 0; t < line.length; ) {
    const c = data[3 * t]!;
    const cp = c & 0x1fffff;
    if (c & 0x200000) {
      const chars = line._combined[t] ?? '';
      if (chars.includes(KITTY_PLACEHOLDER) || !prev.startsWith(chars, p)) return false;
      p += chars.length;
    } else if (cp === 0 || cp === 0x10eeee) {
      if (prev.charCodeAt(p++) !== 0x20) return false;
    } else if (cp > 0xffff) {
      if (prev.codePointAt(p) !== cp) return false;
      p += 2;
    } else if (prev.charCodeAt(p++) !== cp) return false;
    t += c >> 22 || 1;
  }
  return p === prev.length;
}

const KITTY_PLACEHOLDER = '\u{10EEEE}';
const EMPTY = new Uint8Array(0);
/**
 * A write up to this size, with nothing queued before it, is parsed at once rather than on
 * xterm's next timer: a line of output then costs the supervisor one wake-up less
 * (docs/performance.md). Bigger writes keep xterm's own queue, which parses in time slices.
 */
const SYNC_WRITE_MAX = 16 * 1024;

export class Mirror {
  private readonly term: Terminal;
  private readonly osc = new OscScanner();
  private readonly cell: IBufferCell;
  private pending = 0;
  private idleWaiters: (() => void)[] = [];
  /** Bumped whenever the screen may have changed; keys the row cache. */
  private generation = 0;
  private cachedGen = -1;
  private cachedRows: string[] = [];
  private cachedHash = 0;
  /** Each cached row's FNV-1a hash, combined into cachedHash. */
  private rowHashes: number[] = [];
  /**
   * Rows changed since they were last rendered, from xterm's own events for its renderer:
   * [dirtyFrom, dirtyTo], or every row when allDirty. A line of output re-renders one row, not
   * forty (docs/performance.md). Without the events (another xterm) every row is rendered.
   */
  private readonly incremental: boolean;
  /** xterm's lines are RawLines: an unchanged row is found without building it (checked once). */
  private readonly rawLines: boolean;
  /** xterm's synchronous write (not in its public API), or null: every write is queued. */
  private readonly syncWrite: ((data: Uint8Array) => void) | null;
  private allDirty = true;
  private dirtyFrom = Number.POSITIVE_INFINITY;
  private dirtyTo = -1;
  private checkFirstByte = false;
  private resnapshot = false;
  private disposed = false;
  private readonly onParsed = (): void => {
    this.generation++;
    if (--this.pending === 0 && this.idleWaiters.length > 0) {
      const w = this.idleWaiters;
      this.idleWaiters = [];
      for (const f of w) f();
    }
  };

  constructor(cols: number, rows: number, opts: MirrorOptions = {}) {
    this.term = new Terminal({
      cols: Math.max(1, cols),
      rows: Math.max(1, rows),
      scrollback: Math.max(0, opts.scrollback ?? MIRROR_SCROLLBACK),
      allowProposedApi: true,
      convertEol: false,
      // xterm warns once that its synchronous write is "unreliable": it is, when called from
      // within a write's callback, which rawWrite never does
      logLevel: 'off',
    });
    useTmuxWidths(this.term);
    this.cell = this.term.buffer.active.getNullCell();
    const core = (this.term as unknown as { _core?: { _inputHandler?: Partial<RowEvents>; writeSync?: (data: Uint8Array) => void } })._core;
    const writeSync = core?.writeSync;
    this.syncWrite = typeof writeSync === 'function' ? (data) => writeSync.call(core, data) : null;
    const rowEvents = core?._inputHandler;
    this.incremental = opts.incremental !== false && typeof rowEvents?.onRequestRefreshRows === 'function' && typeof rowEvents.onRequestReset === 'function';
    if (this.incremental) {
      const events = rowEvents as RowEvents;
      events.onRequestRefreshRows((e) => {
        if (!e) this.allDirty = true;
        else {
          if (e.start < this.dirtyFrom) this.dirtyFrom = e.start;
          if (e.end > this.dirtyTo) this.dirtyTo = e.end;
        }
      });
      // a full reset (RIS): xterm 6 reports its rows too; this holds should a later one not
      events.onRequestReset(() => (this.allDirty = true));
    }
    this.rawLines = rawLine(this.term.buffer.active.getLine(0)) !== null;
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  /** Last OSC 0/2 title the program sent ("" when none). */
  get oscTitle(): string {
    return this.osc.title;
  }

  /** Payload after `9;` of the last OSC 9 ("" when none). */
  get oscProgress(): string {
    return this.osc.progress;
  }

  /**
   * True when the stream after the last seed began with a UTF-8 continuation byte: a
   * character was cut by the snapshot and is lost (tmux keeps it in its parser, not in `-P`).
   * The caller should take a new snapshot and `seed()` again, which clears this.
   */
  get needsResnapshot(): boolean {
    return this.resnapshot;
  }

  /**
   * Whether rows are rendered again only where they changed: xterm's row events and its lines
   * are reachable (they are not its public API; a test says when an upgrade loses them).
   */
  get incrementalRows(): boolean {
    return this.incremental && this.rawLines;
  }

  /** True when everything written so far has been parsed into the screen. */
  get isFlushed(): boolean {
    return this.pending === 0;
  }

  /**
   * Replace the whole screen with a tmux snapshot (`buildSeed()`), resizing first when the
   * pane's size differs. Bytes written before this call are superseded; write the %output
   * that arrived after the snapshot's last %end next.
   */
  seed(s: SeedResult, cb?: () => void): void {
    if (s.cols !== this.term.cols || s.rows !== this.term.rows) this.resize(s.cols, s.rows);
    this.allDirty = true;
    this.osc.resetParser();
    this.resnapshot = false;
    this.checkFirstByte = s.partial.length === 0;
    this.rawWrite(s.seed);
    if (s.partial.length > 0) {
      this.osc.feed(s.partial);
      this.rawWrite(s.partial);
    }
    if (cb) this.rawWrite(EMPTY, cb);
  }

  /**
   * Feed pane output bytes (decoded %output data, any split). Don't mutate `bytes`
   * afterwards: xterm parses it in a later tick. `cb` runs once these bytes are parsed.
   * Returns `needsResnapshot`.
   */
  write(bytes: Uint8Array, cb?: () => void): boolean {
    if (this.disposed) {
      if (cb) queueMicrotask(cb);
      return false;
    }
    const n = bytes.length;
    if (n > 0) {
      if (this.checkFirstByte) {
        this.checkFirstByte = false;
        const b = bytes[0]!;
        if (b >= 0x80 && b <= 0xbf) this.resnapshot = true;
      }
      this.osc.feed(bytes);
    }
    this.rawWrite(bytes, cb);
    return this.resnapshot;
  }

  /** Resolves once every byte written so far is parsed and visible in `snapshot()`. */
  flushed(): Promise<void> {
    if (this.pending === 0 || this.disposed) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Resize the terminal (tmux reflows differently: take a new snapshot after this). */
  resize(cols: number, rows: number): void {
    cols = Math.max(1, cols);
    rows = Math.max(1, rows);
    if (cols === this.term.cols && rows === this.term.rows) return;
    this.term.resize(cols, rows);
    this.allDirty = true;
    this.generation++;
  }

  /** Forget the OSC title and progress (the pane's agent changed). */
  clearOsc(): void {
    this.osc.clear();
  }

  /** The live bottom of the pane for detection (rows built cell by cell, not trimmed). */
  snapshot(): ScreenSnapshot {
    const buf = this.term.buffer.active;
    const cols = this.term.cols;
    const height = this.term.rows;
    const x = buf.cursorX;
    return {
      rows: this.visibleRows().slice(),
      oscTitle: this.osc.title,
      oscProgress: this.osc.progress,
      altScreen: buf.type === 'alternate',
      cursor: { x: x >= cols ? cols - 1 : x, y: buf.cursorY },
      cols,
      height,
    };
  }

  /** 32-bit FNV-1a of the visible text; equal values mean (almost surely) an unchanged screen. */
  fingerprint(): number {
    this.visibleRows();
    return this.cachedHash;
  }

  /** Plain text of the last `lines` lines (default: the screen), right-trimmed, trailing blank lines dropped. */
  renderText(lines?: number): string {
    const buf = this.term.buffer.active;
    const out: string[] = [];
    const [from, to] = this.lineRange(lines);
    for (let y = from; y < to; y++) {
      const line = buf.getLine(y);
      out.push(line ? line.translateToString(true).replaceAll(KITTY_PLACEHOLDER, ' ').trimEnd() : '');
    }
    return joinLines(out);
  }

  /** Like `renderText`, with SGR sequences reproducing colours and attributes. */
  renderAnsi(lines?: number): string {
    const buf = this.term.buffer.active;
    const cell = this.cell;
    const out: string[] = [];
    const [from, to] = this.lineRange(lines);
    for (let y = from; y < to; y++) {
      const line = buf.getLine(y);
      if (!line) {
        out.push('');
        continue;
      }
      // Last cell worth printing: non-blank text or a visible background/attribute.
      let end = this.term.cols - 1;
      for (; end >= 0; end--) {
        line.getCell(end, cell);
        const ch = cell.getChars();
        if (cell.getWidth() === 0) continue;
        if ((ch !== '' && ch !== ' ') || !cell.isBgDefault() || cell.isInverse() || cell.isUnderline()) break;
      }
      let s = '';
      let prev = '';
      for (let x = 0; x <= end; x++) {
        line.getCell(x, cell);
        if (cell.getWidth() === 0) continue;
        const sgr = sgrOf(cell);
        if (sgr !== prev) {
          s += `\x1b[${sgr === '' ? '0' : `0;${sgr}`}m`;
          prev = sgr;
        }
        const ch = cell.getChars();
        s += ch === '' || ch === KITTY_PLACEHOLDER ? ' ' : ch;
      }
      if (prev !== '') s += '\x1b[0m';
      out.push(s);
    }
    return joinLines(out);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.term.dispose();
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const f of w) f();
  }

  private rawWrite(bytes: Uint8Array, cb?: () => void): void {
    if (this.pending === 0 && this.syncWrite && bytes.length <= SYNC_WRITE_MAX) {
      // nothing queued before it: parsed now, in order; the callback still comes after the caller
      this.syncWrite(bytes);
      this.generation++;
      if (cb) queueMicrotask(cb);
      return;
    }
    this.pending++;
    this.generation++; // a snapshot taken before the parse must not be cached as current
    this.term.write(
      bytes,
      cb
        ? () => {
            this.onParsed();
            cb();
          }
        : this.onParsed,
    );
  }

  private lineRange(lines?: number): [number, number] {
    const buf = this.term.buffer.active;
    const to = buf.baseY + this.term.rows;
    const n = lines === undefined ? this.term.rows : Math.max(0, Math.floor(lines));
    return [Math.max(0, to - n), to];
  }

  /** The screen rows, cell by cell, cached until the next change; only changed rows are rendered again. */
  private visibleRows(): string[] {
    if (this.cachedGen === this.generation) return this.cachedRows;
    const buf = this.term.buffer.active;
    const base = buf.baseY;
    const n = this.term.rows;
    const all = !this.incremental || this.allDirty || this.cachedRows.length !== n || buf.viewportY !== base;
    const from = all ? 0 : Math.max(0, this.dirtyFrom);
    const to = all ? n - 1 : Math.min(n - 1, this.dirtyTo);
    this.allDirty = false;
    this.dirtyFrom = Number.POSITIVE_INFINITY;
    this.dirtyTo = -1;
    // changed in place: snapshot() hands out a copy
    const rows = all ? new Array<string>(n) : this.cachedRows;
    if (all) this.rowHashes = new Array<number>(n);
    for (let y = from; y <= to; y++) {
      const line = buf.getLine(base + y);
      if (!all && this.rawLines && line && sameRow((line as unknown as { _line: RawLine })._line, rows[y]!)) continue;
      // translateToString(false) builds a row as herdr does: an empty cell gives one space, the
      // right half of a wide character is skipped, a cell gives all its code points.
      let s = line ? line.translateToString(false) : ' '.repeat(this.term.cols);
      if (s.includes(KITTY_PLACEHOLDER)) s = s.replaceAll(KITTY_PLACEHOLDER, ' ');
      rows[y] = s;
      let h = 0x811c9dc5;
      for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
      this.rowHashes[y] = h;
    }
    let h = 0x811c9dc5;
    for (let y = 0; y < n; y++) h = Math.imul(h ^ this.rowHashes[y]!, 0x01000193);
    this.cachedRows = rows;
    this.cachedHash = h >>> 0;
    this.cachedGen = this.generation;
    return rows;
  }
}

function joinLines(lines: string[]): string {
  let n = lines.length;
  while (n > 0 && lines[n - 1] === '') n--;
  return n === 0 ? '' : `${lines.slice(0, n).join('\n')}\n`;
}

function colour(isRGB: boolean, isPalette: boolean, c: number, base: number, bright: number): string {
  if (isRGB) return `${base + 8};2;${(c >> 16) & 255};${(c >> 8) & 255};${c & 255}`;
  if (isPalette) {
    if (c < 8) return `${base + c}`;
    if (c < 16) return `${bright + c - 8}`;
    return `${base + 8};5;${c}`;
  }
  return '';
}

/** SGR parameters (after the leading 0) describing a cell's attributes; "" for the default pen. */
function sgrOf(c: IBufferCell): string {
  if (c.isAttributeDefault()) return '';
  const p: string[] = [];
  if (c.isBold()) p.push('1');
  if (c.isDim()) p.push('2');
  if (c.isItalic()) p.push('3');
  if (c.isUnderline()) p.push('4');
  if (c.isBlink()) p.push('5');
  if (c.isInverse()) p.push('7');
  if (c.isInvisible()) p.push('8');
  if (c.isStrikethrough()) p.push('9');
  if (c.isOverline()) p.push('53');
  const fg = colour(c.isFgRGB(), c.isFgPalette(), c.getFgColor(), 30, 90);
  if (fg) p.push(fg);
  const bg = colour(c.isBgRGB(), c.isBgPalette(), c.getBgColor(), 40, 100);
  if (bg) p.push(bg);
  return p.join(';');
}
