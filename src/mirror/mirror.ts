// One headless terminal per agent pane: seeded from a tmux snapshot, then fed the pane's
// %output bytes. Detection reads `snapshot()`; `nerdr read` uses `renderText`/`renderAnsi`.

import type { ScreenSnapshot } from '../types.js';
import { OscScanner } from './osc.js';
import type { SeedResult } from './seed.js';
import { useTmuxWidths } from './wcwidth.js';
import { Terminal, type IBufferCell } from './xterm.js';

export interface MirrorOptions {
  /** Lines kept above the screen (for `renderText(lines)`); default 100. Detection needs none. */
  scrollback?: number;
}

const KITTY_PLACEHOLDER = '\u{10EEEE}';
const EMPTY = new Uint8Array(0);

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
      scrollback: Math.max(0, opts.scrollback ?? 100),
      allowProposedApi: true,
      convertEol: false,
    });
    useTmuxWidths(this.term);
    this.cell = this.term.buffer.active.getNullCell();
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

  /** The screen rows, cell by cell, cached until the next change. */
  private visibleRows(): string[] {
    if (this.cachedGen === this.generation) return this.cachedRows;
    const buf = this.term.buffer.active;
    const base = buf.baseY;
    const rows: string[] = new Array<string>(this.term.rows);
    let h = 0x811c9dc5;
    for (let y = 0; y < this.term.rows; y++) {
      const line = buf.getLine(base + y);
      // translateToString(false) builds a row as herdr does: an empty cell gives one space, the
      // right half of a wide character is skipped, a cell gives all its code points.
      let s = line ? line.translateToString(false) : ' '.repeat(this.term.cols);
      if (s.includes(KITTY_PLACEHOLDER)) s = s.replaceAll(KITTY_PLACEHOLDER, ' ');
      rows[y] = s;
      for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
      h = Math.imul(h ^ 0x0a, 0x01000193);
    }
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
