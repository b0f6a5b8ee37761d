// Detection text: the plain string the manifest rules look at (manifest-format.md §2.1 steps 3–5).

import type { ScreenSnapshot } from '../types.js';

/** Unicode White_Space (Rust's definition; JS `trim()` differs on U+0085 and U+FEFF). */
const WS = '\\t-\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000';
const TRAILING_WS = new RegExp(`[${WS}]+$`, 'u');
const LEADING_WS = new RegExp(`^[${WS}]+`, 'u');
const KITTY_PLACEHOLDER = /\u{10EEEE}/gu;

export function trimEndWs(s: string): string {
  return s.replace(TRAILING_WS, '');
}

export function trimWs(s: string): string {
  return s.replace(TRAILING_WS, '').replace(LEADING_WS, '');
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

/** Detection text from the mirror's snapshot (the last `height` rows, §2.1 step 1). */
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
