// Walkthroughs: an agent's guided tour of its change, step by step, for the person who reviews
// it. `nerdr walkthrough` appends one JSON line per step to <data dir>/walkthrough.jsonl, as `why`
// and `order` append (same lock, same fields, plus file and line); readWalkthrough gives a
// window's steps back in order (`nerdr walkthrough --show`, the review panel).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Caller } from './agents.js';
import { dataDir } from './store.js';

/** One step as written: the `why` line's fields, plus where in the change it points. */
export interface WalkthroughStep extends Caller {
  time: string;
  cwd: string;
  text: string;
  /** Relative to the window's folder (its worktree, or where it was started); absolute when outside it; null for none. */
  file: string | null;
  /** 1-based; null for none (or a whole file). */
  line: number | null;
}

export function walkthroughFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(dataDir(env), 'walkthrough.jsonl');
}

/** `file` as a step stores it: relative to `folder` when inside it, else absolute. */
export function stepFile(file: string, callerCwd: string, folder: string): string {
  const abs = path.resolve(callerCwd, file);
  const rel = path.relative(folder, abs);
  return rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel;
}

/** Which window's steps: its id, and its conversation (a restored window has a new id but the same conversation). */
export interface WalkthroughWindow {
  window: string;
  conversation?: string | null;
}

function isStep(v: unknown): v is WalkthroughStep {
  const o = v as Partial<WalkthroughStep> | null;
  return !!o && typeof o === 'object' && typeof o.text === 'string' && typeof o.time === 'string';
}

/** Every step in the file, in the order written; lines that are not steps are skipped. */
export function readAllSteps(file = walkthroughFile()): WalkthroughStep[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: WalkthroughStep[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const v: unknown = JSON.parse(line);
      if (isStep(v)) out.push({ ...v, file: typeof v.file === 'string' ? v.file : null, line: typeof v.line === 'number' ? v.line : null });
    } catch {
      /* a torn or foreign line: not a step */
    }
  }
  return out;
}

/**
 * A window's steps, in order: those written from that window id, and those of its conversation
 * (so a window brought back by `nerdr restore` keeps its tour). Window ids are reused by a new
 * tmux server: a step of the same id but another known conversation is not this window's.
 */
export function readWalkthrough(target: string | WalkthroughWindow, file = walkthroughFile()): WalkthroughStep[] {
  const t: WalkthroughWindow = typeof target === 'string' ? { window: target } : target;
  const conv = t.conversation ?? null;
  return readAllSteps(file).filter((s) => {
    if (conv && s.conversation === conv) return true;
    if (s.window !== t.window) return false;
    return !conv || !s.conversation || s.conversation === conv;
  });
}
