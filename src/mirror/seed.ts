// Snapshot-then-stream, step one: the reply of the one-line snapshot group becomes a byte
// sequence that puts a fresh headless terminal into the state of tmux's own grid (docs/mirror.md).

/** Format for `display -p`: the pane geometry, cursor and the modes the seed restores. */
export const SNAPSHOT_DISPLAY_FORMAT =
  '#{pane_width} #{pane_height} #{cursor_x} #{cursor_y} #{alternate_on} ' +
  '#{scroll_region_upper} #{scroll_region_lower} #{cursor_flag} #{wrap_flag} #{insert_flag} ' +
  '#{keypad_cursor_flag} #{keypad_flag} #{origin_flag} #{alternate_saved_x} #{alternate_saved_y} #{history_size}';

/** A mirror's scrollback unless it is given one (Mirror), and so the history a snapshot takes. */
export const MIRROR_SCROLLBACK = 100;

/** Quoting and decoding are the control channel's own (src/tmux); re-exported for callers here. */
export { quote as quoteTmuxArg } from '../tmux/quote.js';
export { decodeOctal } from '../tmux/decode.js';
import { command } from '../tmux/quote.js';
import { decodeOctal } from '../tmux/decode.js';

/**
 * The snapshot commands for one pane. Their reply is five blocks, in this order: display,
 * visible screen, saved main screen, parser-pending bytes, the history above the screen (its
 * last MIRROR_SCROLLBACK lines, so `nerdr read --lines` reaches past the screen after a
 * seed too). Send them on one line so that no output of the pane can slip between the commands.
 */
export function snapshotCommands(paneId: string): string[] {
  return [
    command('display', '-p', '-t', paneId, SNAPSHOT_DISPLAY_FORMAT),
    command('capture-pane', '-p', '-e', '-N', '-t', paneId),
    command('capture-pane', '-p', '-e', '-N', '-a', '-q', '-t', paneId),
    command('capture-pane', '-p', '-P', '-C', '-t', paneId),
    command('capture-pane', '-p', '-e', '-N', '-S', `-${MIRROR_SCROLLBACK}`, '-E', '-1', '-t', paneId),
  ];
}

/**
 * `refresh-client -A '%P:continue'`, then the snapshot, for one line. A pane that tmux paused
 * for this client (pause-after) gets output again from the moment of the capture, so nothing
 * between the two is lost or doubled; continuing a pane that is not paused does nothing. The
 * reply is six blocks: the continue's (tmux < 3.8 prints `%continue %P` inside it), then
 * the snapshot's five. A mirror is always seeded this way, so no pane stays paused.
 */
export function resumeAndSnapshotCommands(paneId: string): string[] {
  return [command('refresh-client', '-A', `${paneId}:continue`), ...snapshotCommands(paneId)];
}

/** The same as one command line (no trailing newline). */
export function buildSnapshotCommand(paneId: string): string {
  return snapshotCommands(paneId).join(' ; ');
}

/** The fields of the `display -p` line, parsed. */
export interface PaneDisplayState {
  width: number;
  height: number;
  cursorX: number;
  cursorY: number;
  alternateOn: boolean;
  scrollUpper: number;
  scrollLower: number;
  cursorVisible: boolean;
  wrap: boolean;
  insert: boolean;
  keypadCursor: boolean;
  keypad: boolean;
  origin: boolean;
  altSavedX: number;
  altSavedY: number;
  /** Lines of history above the screen (0 when the reply had no such field). */
  historySize: number;
}

/** What `Mirror.seed()` takes. */
export interface SeedResult {
  cols: number;
  rows: number;
  /** Bytes that rebuild the screen from scratch (they start with RIS). */
  seed: Buffer;
  /** Bytes tmux's parser held when the snapshot was taken (a half-received sequence); fed after `seed`. */
  partial: Buffer;
  state: PaneDisplayState;
}

/** Raw reply lines (without their `\n`), as bytes. */
export type ReplyBlock = readonly Uint8Array[];

function toInt(s: string | undefined, dflt: number): number {
  if (s === undefined || s === '') return dflt;
  const v = Number.parseInt(s, 10);
  return Number.isFinite(v) ? v : dflt;
}

/** Parse the one `display -p` line of the snapshot group. Throws when it is not that line. */
export function parseDisplayLine(line: Uint8Array | string): PaneDisplayState {
  const text = typeof line === 'string' ? line : Buffer.from(line).toString('latin1');
  const f = text.trim().split(/\s+/);
  if (f.length < 7 || !/^\d+$/.test(f[0] ?? '') || !/^\d+$/.test(f[1] ?? '')) {
    throw new Error(`mirror: not a snapshot display line: ${JSON.stringify(text.slice(0, 120))}`);
  }
  const width = Math.max(1, toInt(f[0], 80));
  const height = Math.max(1, toInt(f[1], 24));
  const flag = (i: number, dflt: boolean): boolean => {
    const s = f[i];
    return s === undefined || s === '' ? dflt : s !== '0';
  };
  return {
    width,
    height,
    cursorX: toInt(f[2], 0),
    cursorY: toInt(f[3], 0),
    alternateOn: flag(4, false),
    scrollUpper: toInt(f[5], 0),
    scrollLower: toInt(f[6], height - 1),
    cursorVisible: flag(7, true),
    wrap: flag(8, true),
    insert: flag(9, false),
    keypadCursor: flag(10, false),
    keypad: flag(11, false),
    origin: flag(12, false),
    altSavedX: toInt(f[13], 0),
    altSavedY: toInt(f[14], 0),
    historySize: Math.max(0, toInt(f[15], 0)),
  };
}

const ESC = '\x1b';
const CSI = '\x1b[';

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}

/** Each capture line placed by an absolute cursor move (no reliance on wrapping or scrolling). */
function pushRows(parts: Uint8Array[], lines: ReplyBlock, height: number): void {
  const n = Math.min(lines.length, height);
  for (let i = 0; i < n; i++) {
    const line = lines[i]!;
    parts.push(Buffer.from(`${CSI}${i + 1};1H`, 'latin1'));
    if (line.length > 0) parts.push(line);
  }
}

/**
 * Build the seed from the reply blocks of `buildSnapshotCommand()`: [display line], [visible
 * screen, -e -N], [saved main screen, -a -q], [pending bytes, -P -C], and optionally [history,
 * -S -N -E -1]. The history is written first and scrolled off the top into the scrollback; it
 * is taken only when the display line counts some (with none, tmux's -E -1 is the screen's
 * first line).
 */
export function buildSeed(blocks: readonly ReplyBlock[]): SeedResult {
  if (blocks.length < 4) {
    throw new Error(`mirror: snapshot reply needs 4 blocks (5 with the history), got ${blocks.length}`);
  }
  const displayLine = blocks[0]![0];
  if (displayLine === undefined) throw new Error('mirror: empty display block in snapshot reply');
  const st = parseDisplayLine(displayLine);
  const screen = blocks[1]!;
  const saved = blocks[2]!;
  const pendingLines = blocks[3]!;
  const W = st.width;
  const H = st.height;

  const parts: Uint8Array[] = [Buffer.from(`${ESC}c`, 'latin1')]; // RIS
  const history = (blocks[4] ?? []).slice(-Math.min(st.historySize, MIRROR_SCROLLBACK));
  if (st.historySize > 0 && history.length > 0) {
    // each line then CR LF from the top; H - 1 more line feeds scroll the last of them off too.
    // -e writes a line's codes against the last cell of the line before (grid_string_cells keeps
    // it across the capture's lines), so the pen is reset only before and after them all
    const nl = Buffer.from('\r\n', 'latin1');
    parts.push(Buffer.from(`${CSI}0m`, 'latin1'));
    for (const line of history) {
      if (line.length > 0) parts.push(line);
      parts.push(nl);
    }
    parts.push(Buffer.from(`${CSI}0m${'\r\n'.repeat(H - 1)}`, 'latin1'));
  }
  if (st.alternateOn) {
    pushRows(parts, saved, H); // the main screen, saved while the alternate one is active
    const sy = clamp(st.altSavedY, 0, H - 1) + 1;
    const sx = clamp(st.altSavedX, 0, W - 1) + 1;
    // 1049h saves this cursor and enters (and clears) the alternate screen.
    parts.push(Buffer.from(`${CSI}0m${CSI}${sy};${sx}H${CSI}?1049h`, 'latin1'));
  }
  pushRows(parts, screen, H);

  let tail = `${CSI}0m`;
  const upper = clamp(st.scrollUpper, 0, H - 1);
  const lower = clamp(st.scrollLower, upper, H - 1);
  const fullRegion = upper === 0 && lower === H - 1;
  if (!fullRegion) tail += `${CSI}${upper + 1};${lower + 1}r`; // DECSTBM homes the cursor: before CUP
  const cx = clamp(st.cursorX, 0, W - 1) + 1;
  if (st.origin) {
    tail += `${CSI}?6h`;
    tail += `${CSI}${clamp(st.cursorY - upper, 0, lower - upper) + 1};${cx}H`;
  } else {
    tail += `${CSI}${clamp(st.cursorY, 0, H - 1) + 1};${cx}H`;
  }
  if (!st.cursorVisible) tail += `${CSI}?25l`;
  if (!st.wrap) tail += `${CSI}?7l`;
  if (st.insert) tail += `${CSI}4h`;
  if (st.keypadCursor) tail += `${CSI}?1h`;
  if (st.keypad) tail += `${ESC}=`;
  parts.push(Buffer.from(tail, 'latin1'));

  // -C keeps the pending bytes on one line; join defensively should tmux ever split them.
  const pendingRaw: Uint8Array[] = [];
  pendingLines.forEach((l, i) => {
    if (i > 0) pendingRaw.push(Buffer.from('\n'));
    pendingRaw.push(l);
  });
  const partial = decodeOctal(Buffer.concat(pendingRaw));

  return { cols: W, rows: H, seed: Buffer.concat(parts), partial, state: st };
}
