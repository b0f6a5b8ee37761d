// Detection text: the plain string the manifest rules look at (docs/manifest-format.md, "Regions").

import type { ScreenSnapshot } from '../types.js';

const KITTY_PLACEHOLDER = /\u{10EEEE}/gu;

/**
 * Unicode White_Space (Rust's definition; JS `trim()` differs on U+0085 and U+FEFF). All of
 * them are in the BMP, so checking UTF-16 code units is exact. A scan instead of a `[…]+$`
 * regex: the regex retries from every space of a long run, and TUI rows are mostly spaces
 * (it was half the time of a whole evaluation).
 */
export function isWs(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x20 ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

export function trimEndWs(s: string): string {
  let end = s.length;
  while (end > 0 && isWs(s.charCodeAt(end - 1))) end--;
  return end === s.length ? s : s.slice(0, end);
}

export function trimWs(s: string): string {
  let start = 0;
  let end = s.length;
  while (end > 0 && isWs(s.charCodeAt(end - 1))) end--;
  while (start < end && isWs(s.charCodeAt(start))) start++;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

export function isBlank(s: string): boolean {
  return trimWs(s) === '';
}

/** Rows → detection text: right-trim each row, drop trailing blank rows, join with \n plus a final \n. */
export function rowsToText(rows: readonly string[]): string {
  const trimmed = rows.map((r) => trimEndWs(r));
  let end = trimmed.length;
  while (end > 0 && trimmed[end - 1] === '') end -= 1;
  if (end === 0) return '';
  return trimmed.slice(0, end).join('\n') + '\n';
}

/** Detection text from the mirror's snapshot (the last `height` rows). */
export function snapshotText(snapshot: ScreenSnapshot): string {
  const h = Math.max(1, snapshot.height || 24);
  const rows = snapshot.rows.length > h ? snapshot.rows.slice(snapshot.rows.length - h) : snapshot.rows;
  return rowsToText(rows);
}

/**
 * Detection text from a plain text screen, e.g. `tmux capture-pane -p` output or a hand-written
 * file: CRLF and lone CR line ends become \n, the Kitty image placeholder becomes a space, then
 * the same steps as for a snapshot.
 */
export function rawScreenText(raw: string): string {
  const normalised = raw.replace(/\r\n/g, '\n').replace(KITTY_PLACEHOLDER, ' ');
  const rows = normalised.split('\n');
  if (rows.length > 0 && rows[rows.length - 1] === '') rows.pop();
  return rowsToText(rows);
}
