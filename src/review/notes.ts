// The notes the panel shows for a window: its walkthrough steps and its `why` notes, in the
// order they were written. Both are JSON lines in the data dir (src/extras/store.ts), written
// by `nerdr walkthrough` and `nerdr why` with the window and folder of the agent that wrote them.

import { readFile } from 'node:fs/promises';
import path from 'node:path';

export type NoteKind = 'step' | 'why';

export interface ReviewNote {
  kind: NoteKind;
  time: string;
  text: string;
  /** A step's file, absolute (written relative to the window's folder), and line; null when none. */
  file: string | null;
  line: number | null;
}

interface RawNote {
  time?: unknown;
  window?: unknown;
  cwd?: unknown;
  text?: unknown;
  file?: unknown;
  line?: unknown;
}

function inside(dir: string, p: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The lines of one JSONL file that belong to the window: its id, and written inside its folder
 * (window ids are reused by a later tmux server, folders tell the windows apart). Broken lines
 * are skipped; the file's order is kept.
 */
export function selectNotes(kind: NoteKind, jsonl: string, window: string, folder: string): ReviewNote[] {
  const out: ReviewNote[] = [];
  for (const line of jsonl.split('\n')) {
    if (!line.trim()) continue;
    let n: RawNote;
    try {
      n = JSON.parse(line) as RawNote;
    } catch {
      continue;
    }
    if (!n || typeof n !== 'object' || n.window !== window || typeof n.text !== 'string') continue;
    const cwd = typeof n.cwd === 'string' ? n.cwd : '';
    if (cwd && !inside(folder, cwd) && !inside(cwd, folder)) continue;
    const file = typeof n.file === 'string' && n.file ? path.resolve(folder, n.file) : null;
    const lineNo = typeof n.line === 'number' && Number.isInteger(n.line) && n.line > 0 ? n.line : null;
    out.push({ kind, time: typeof n.time === 'string' ? n.time : '', text: n.text, file, line: file ? lineNo : null });
  }
  return out;
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return '';
  }
}

export const NOTE_FILES: Record<NoteKind, string> = { step: 'walkthrough.jsonl', why: 'why.jsonl' };

/** The window's walkthrough steps and why notes, each list in the order written. */
export async function readNotes(dataDir: string, window: string, folder: string): Promise<{ steps: ReviewNote[]; why: ReviewNote[] }> {
  const [steps, why] = await Promise.all([readText(path.join(dataDir, NOTE_FILES.step)), readText(path.join(dataDir, NOTE_FILES.why))]);
  return { steps: selectNotes('step', steps, window, folder), why: selectNotes('why', why, window, folder) };
}
