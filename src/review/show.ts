// What the diff box shows for a walkthrough step: everything that changed in the step's file
// since the base (committed or not), an untracked file whole, or, with no change there, the
// file itself with line numbers, so the step's line can still be pointed at.

import path from 'node:path';
import { diffRows, fileRows, type DiffRow } from './diff.js';
import { diffSince, fileDiff } from './git.js';
import { readShownFile } from './read-file.js';
import type { ReviewData } from './data.js';
import type { ReviewNote } from './notes.js';

/** The file itself, if the panel may read it (read-file.ts): a regular file inside the window's folder or checkout. */
async function asFile(d: ReviewData, file: string, name: string): Promise<DiffRow[]> {
  const r = await readShownFile(file, d.repo ? [d.folder, d.repo] : [d.folder]);
  return 'text' in r ? fileRows(r.text, name) : [{ kind: 'note', text: `${name}: ${r.refused}`, line: null }];
}

export async function stepRows(d: ReviewData, step: ReviewNote): Promise<DiffRow[]> {
  if (!step.file) return [];
  const name = path.relative(d.repo ?? d.folder, step.file) || path.basename(step.file);
  if (!d.repo || name.startsWith('..')) return asFile(d, step.file, name);
  const untracked = d.files.find((f) => f.kind === 'untracked' && f.path === name);
  const diff = untracked ? await fileDiff(d.repo, untracked, d.base) : await diffSince(d.repo, name, d.base);
  return diff.text.trim() ? diffRows(diff) : asFile(d, step.file, name);
}
