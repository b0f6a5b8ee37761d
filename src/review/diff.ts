// A unified diff as rows the panel draws: each row knows its kind (for its colour) and the line
// of the new file it shows, so a walkthrough step (file, line) can scroll the diff to it.

import { escapeTags } from '../ui/theme.js';
import type { BoundedText } from './bounded-text.js';

export type DiffRowKind = 'meta' | 'hunk' | 'add' | 'del' | 'context' | 'note';

export interface DiffRow {
  kind: DiffRowKind;
  text: string;
  /** The new file's line this row shows (added and context rows), or the line a removal sits before. */
  line: number | null;
}

const HUNK = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** Splits `git diff` output (no colour) into rows; tabs become spaces so widths hold. */
export function parseDiff(text: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let next: number | null = null;
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (const raw of lines) {
    const text = raw.replace(/\t/g, '    ').replace(/\r$/, '');
    const h = HUNK.exec(raw);
    if (h) {
      next = Number(h[1]);
      rows.push({ kind: 'hunk', text, line: next });
    } else if (next === null) {
      rows.push({ kind: 'meta', text, line: null });
    } else if (raw.startsWith('+')) {
      rows.push({ kind: 'add', text, line: next++ });
    } else if (raw.startsWith('-')) {
      rows.push({ kind: 'del', text, line: next });
    } else if (raw.startsWith(' ') || raw === '') {
      rows.push({ kind: 'context', text, line: next++ });
    } else if (raw.startsWith('\\')) {
      rows.push({ kind: 'note', text, line: null }); // \ No newline at end of file
    } else {
      // the next file's header (a diff of several files)
      next = null;
      rows.push({ kind: 'meta', text, line: null });
    }
  }
  return rows;
}

/** A bounded diff as rows, with "… N more lines" for what was not kept (bounded-text.ts). */
export function diffRows(d: BoundedText): DiffRow[] {
  const rows = parseDiff(d.text);
  if (d.more > 0) rows.push({ kind: 'note', text: `… ${d.more} more line${d.more === 1 ? '' : 's'} (not shown: run git diff for all of it)`, line: null });
  return rows;
}

/**
 * The row to show for line `line` of the new file: the row showing it, else the first row past
 * it (the line lies in a gap between hunks), else the last row with a line. -1 for no rows.
 */
export function rowForLine(rows: readonly DiffRow[], line: number): number {
  let last = -1;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    if (r.line === null || r.kind === 'hunk') continue;
    if (r.line === line && r.kind !== 'del') return i;
    if (r.line > line) return Math.max(0, i - (rows[i - 1]?.kind === 'hunk' ? 1 : 0));
    last = i;
  }
  return last;
}

const COLOURS: Record<DiffRowKind, string | null> = {
  meta: 'bold',
  hunk: 'cyan-fg',
  add: 'green-fg',
  del: 'red-fg',
  context: null,
  note: 'gray-fg',
};

/** One row as blessed tags: coloured by kind; `mark` draws it reversed (the step's line). */
export function tagRow(row: DiffRow, mark = false): string {
  const c = COLOURS[row.kind];
  let s = escapeTags(row.text);
  if (c) s = `{${c}}${s}{/${c}}`;
  return mark ? `{inverse}${s || ' '}{/inverse}` : s;
}

/** A file's text as rows with line numbers (a step on a file with no change left). */
export function fileRows(text: string, name: string): DiffRow[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const width = String(lines.length).length;
  return [
    { kind: 'meta', text: `${name} (no change to show: the file as it is)`, line: null },
    ...lines.map((l, i) => ({ kind: 'context' as const, text: `${String(i + 1).padStart(width)} ${l.replace(/\t/g, '    ')}`, line: i + 1 })),
  ];
}

/** Leaves out the header rows a narrow pane has no room for (diff --git, index, ---, +++); keeps modes, renames and "Binary files differ". */
export function compactRows(rows: readonly DiffRow[]): DiffRow[] {
  return rows.filter((r) => r.kind !== 'meta' || !/^(diff --git |index [0-9a-f]|--- |\+\+\+ )/.test(r.text));
}
