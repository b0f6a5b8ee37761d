// What the diff box shows for a walkthrough step: everything that changed in the step's file
// since the base (committed or not), an untracked file whole, or, with no change there, the
// file itself with line numbers, so the step's line can still be pointed at.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileRows, parseDiff, type DiffRow } from './diff.js';
import { diffSince, fileDiff } from './git.js';
import type { ReviewData } from './data.js';
import type { ReviewNote } from './notes.js';

const MAX_SHOWN_BYTES = 2 * 1024 * 1024;

async function asFile(file: string, name: string): Promise<DiffRow[]> {
  try {
    const buf = await readFile(file);
    if (buf.length > MAX_SHOWN_BYTES || buf.includes(0)) return [{ kind: 'note', text: `${name}: binary or too large to show`, line: null }];
    return fileRows(buf.toString('utf8'), name);
  } catch (err) {
    return [{ kind: 'note', text: `${name}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file (any more)' : (err as Error).message}`, line: null }];
  }
}

export async function stepRows(d: ReviewData, step: ReviewNote): Promise<DiffRow[]> {
  if (!step.file) return [];
  const name = path.relative(d.repo ?? d.folder, step.file) || path.basename(step.file);
  if (!d.repo || name.startsWith('..')) return asFile(step.file, name);
  const untracked = d.files.find((f) => f.kind === 'untracked' && f.path === name);
  const text = untracked ? await fileDiff(d.repo, untracked, d.base) : await diffSince(d.repo, name, d.base);
  return text.trim() ? parseDiff(text) : asFile(step.file, name);
}
