// The notes the panel shows for a window: its walkthrough steps and its `why` notes, in the
// order they were written. Both are JSON lines in the data dir (src/extras/store.ts), written
// by `nerdr walkthrough` and `nerdr why` with the window and conversation of the agent.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { readWalkthrough, type WalkthroughStep } from '../extras/walkthrough.js';

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
  conversation?: unknown;
  text?: unknown;
  file?: unknown;
  line?: unknown;
}

/** Which window's notes: its id, and its conversation when known. */
export interface NoteOwner {
  window: string;
  conversation?: string | null;
}

/**
 * Whether a why note is the window's, by the rule of src/extras/walkthrough.ts: written from that
 * window, or in its conversation (a window brought back by `nerdr restore` has a new id); a note
 * of the same id but another known conversation belongs to an earlier window (ids are reused).
 */
export function ownNote(n: { window?: unknown; conversation?: unknown }, owner: NoteOwner): boolean {
  const conv = owner.conversation ?? null;
  const noteConv = typeof n.conversation === 'string' ? n.conversation : null;
  if (conv && noteConv === conv) return true;
  if (n.window !== owner.window) return false;
  return !conv || !noteConv;
}

/** The lines of one JSONL file that are the window's, in the file's order; broken lines are skipped. */
export function selectNotes(kind: NoteKind, jsonl: string, owner: NoteOwner, folder: string): ReviewNote[] {
  const out: ReviewNote[] = [];
  for (const line of jsonl.split('\n')) {
    if (!line.trim()) continue;
    let n: RawNote;
    try {
      n = JSON.parse(line) as RawNote;
    } catch {
      continue;
    }
    if (!n || typeof n !== 'object' || typeof n.text !== 'string' || !ownNote(n, owner)) continue;
    // relative to the window's folder, or absolute when outside it
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

/** A walkthrough step as the panel lists it: the file made absolute against the window's folder. */
export function stepNote(s: Pick<WalkthroughStep, 'time' | 'text' | 'file' | 'line'>, folder: string): ReviewNote {
  const file = s.file ? path.resolve(folder, s.file) : null;
  const line = file && typeof s.line === 'number' && Number.isInteger(s.line) && s.line > 0 ? s.line : null;
  return { kind: 'step', time: s.time, text: s.text, file, line };
}

/** The window's walkthrough steps (src/extras/walkthrough.ts reads them) and why notes, each in the order written. */
export async function readNotes(dataDir: string, owner: NoteOwner, folder: string): Promise<{ steps: ReviewNote[]; why: ReviewNote[] }> {
  let steps: ReviewNote[] = [];
  try {
    steps = readWalkthrough(owner, path.join(dataDir, NOTE_FILES.step)).map((s) => stepNote(s, folder));
  } catch {
    // an unreadable file: no steps to show
  }
  const why = await readText(path.join(dataDir, NOTE_FILES.why));
  return { steps, why: selectNotes('why', why, owner, folder) };
}
