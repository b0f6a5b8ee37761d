// Where the panel's parts go for a given pane size, and the rows of its two lists. Pure: the
// panel (panel.ts) only places boxes where this says and draws these rows.

import path from 'node:path';
import type { ReviewFile, ReviewFileKind } from './git.js';
import type { ReviewNote } from './notes.js';
import { visible } from '../text.js';

export interface Box {
  top: number;
  height: number;
}

export interface PanelLayout {
  header: Box;
  files: Box;
  /** Height 0: no notes, the box is hidden. */
  notes: Box;
  diff: Box;
  footer: Box;
}

const KEYS = ['↑↓/jk move', 'tab pane', '⏎ diff', 'pgup/pgdn scroll', 'e edit', 'c comment', 'r refresh', 'q quit'];

/** The key help, wrapped to the width: one line in a wide pane, more in a narrow one. */
export function footerLines(width: number): string[] {
  const lines: string[] = [];
  let cur = '';
  for (const k of KEYS) {
    const next = cur ? `${cur} · ${k}` : ` ${k}`;
    if ([...next].length > width && cur) {
      lines.push(cur);
      cur = ` ${k}`;
    } else cur = next;
  }
  if (cur) lines.push(cur);
  return lines;
}

/**
 * Two header rows, the footer, then the files list (its rows, up to 35 % of what is left), the
 * notes (up to 25 %, none without notes) and the diff with the rest; each list keeps at least
 * one row inside its borders, and the diff wins when the pane is very short.
 */
export function layout(width: number, height: number, fileRows: number, noteRows: number): PanelLayout {
  const foot = Math.min(footerLines(width).length, Math.max(1, height - 3));
  const header: Box = { top: 0, height: Math.min(2, height) };
  const room = Math.max(0, height - header.height - foot);
  const cap = (rows: number, share: number): number => (rows <= 0 ? 0 : Math.max(3, Math.min(rows + 2, Math.floor(room * share))));
  let files = Math.max(3, Math.min(fileRows + 2, Math.floor(room * 0.35)));
  let notes = cap(noteRows, 0.25);
  // a short pane: the diff keeps at least 3 rows, the lists give way (notes first)
  const minDiff = 3;
  while (files + notes + minDiff > room && notes > 0) notes = notes > 3 ? notes - 1 : 0;
  while (files + notes + minDiff > room && files > 0) files = files > 3 ? files - 1 : 0;
  const diff = Math.max(0, room - files - notes);
  return {
    header,
    files: { top: header.height, height: files },
    notes: { top: header.height + files, height: notes },
    diff: { top: header.height + files + notes, height: diff },
    footer: { top: height - foot, height: foot },
  };
}

/** A row of a list: a section title (not selectable) or an entry pointing at an item. */
export type ListRow = { kind: 'title'; text: string } | { kind: 'item'; index: number; text: string };

const SECTION: Record<ReviewFileKind, string> = {
  staged: 'staged',
  unstaged: 'unstaged',
  untracked: 'untracked',
  committed: 'committed',
};

/** Shortens text to `width` columns, keeping its end (a path's file name) behind a '…'. */
export function fitStart(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  if (width <= 1) return chars.slice(-width).join('');
  return '…' + chars.slice(chars.length - width + 1).join('');
}

/** Shortens text to `width` columns, keeping its start. */
export function fitEnd(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  if (width <= 1) return chars.slice(0, width).join('');
  return chars.slice(0, width - 1).join('') + '…';
}

function counts(f: ReviewFile): string {
  if (f.added === null || f.removed === null) return 'bin';
  return `+${f.added} -${f.removed}`;
}

/** One file: its status letter, path (shortened from the left) and +/- counts at the right edge. */
export function fileLine(f: ReviewFile, width: number, sharedWith: readonly string[] = []): string {
  // a file another agent's worktree changed too: ⇄ and who, before the counts
  const right = (sharedWith.length ? `⇄ ${visible(sharedWith.join(','))} ` : '') + counts(f);
  const name = visible(f.from ? `${f.from} → ${f.path}` : f.path);
  const room = Math.max(1, width - 2 - right.length - 1);
  const shown = fitStart(name, room);
  return `${f.status} ${shown}${' '.repeat(Math.max(1, width - 2 - [...shown].length - right.length))}${right}`;
}

/** The files grouped by kind, in the order staged, unstaged, untracked, committed since the base. */
export function fileList(files: readonly ReviewFile[], width: number, base: string | null, shared: readonly { path: string; with: string[] }[] = []): ListRow[] {
  const others = new Map(shared.map((s) => [s.path, s.with]));
  const rows: ListRow[] = [];
  for (const kind of ['staged', 'unstaged', 'untracked', 'committed'] as const) {
    const mine = files.map((f, i) => [f, i] as const).filter(([f]) => f.kind === kind);
    if (mine.length === 0) continue;
    const title = kind === 'committed' && base ? `committed since ${base}` : SECTION[kind];
    rows.push({ kind: 'title', text: fitEnd(`${title} (${mine.length})`, width) });
    for (const [f, i] of mine) rows.push({ kind: 'item', index: i, text: fileLine(f, width, others.get(f.path)) });
  }
  return rows;
}

/** A step's place as written: the file relative to the folder, and its line. */
export function stepPlace(n: ReviewNote, folder: string): string {
  if (!n.file) return '';
  const rel = path.relative(folder, n.file) || path.basename(n.file);
  return visible(n.line ? `${rel}:${n.line}` : rel);
}

/** The walkthrough's steps, numbered, then the why notes; indexes run over steps then whys. */
export function noteList(steps: readonly ReviewNote[], why: readonly ReviewNote[], width: number, folder: string): ListRow[] {
  const rows: ListRow[] = [];
  const flat = (t: string): string => visible(t.replace(/\s+/g, ' ').trim());
  if (steps.length) {
    rows.push({ kind: 'title', text: fitEnd(`walkthrough (${steps.length})`, width) });
    steps.forEach((n, i) => {
      const place = stepPlace(n, folder);
      rows.push({ kind: 'item', index: i, text: fitEnd(`${i + 1}. ${place ? `${place} ` : ''}${flat(n.text)}`, width) });
    });
  }
  if (why.length) {
    rows.push({ kind: 'title', text: fitEnd(`why (${why.length})`, width) });
    why.forEach((n, i) => rows.push({ kind: 'item', index: steps.length + i, text: fitEnd(`· ${flat(n.text)}`, width) }));
  }
  return rows;
}

/** The first row of `top` so that row `sel` is visible in a window of `height` rows. */
export function scrollTo(sel: number, top: number, height: number, total: number): number {
  let t = top;
  if (sel < t) t = sel;
  if (sel >= t + height) t = sel - height + 1;
  return Math.max(0, Math.min(t, Math.max(0, total - height)));
}
