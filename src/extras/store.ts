// The data dir and the append-only JSON-line files `nerdr why` and `nerdr order` write.
// Several agents may append at the same moment, so each append takes the file's lock; a lock
// left behind by a killed writer is taken over once its owner is gone or it is stale.

import { appendFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NerdrError } from '../errors.js';
import { acquire, LockTimeoutError } from '../store/lock.js';

export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NERDR_DATA_DIR) return path.resolve(env.NERDR_DATA_DIR);
  if (env.XDG_DATA_HOME) return path.join(env.XDG_DATA_HOME, 'nerdr');
  return path.join(env.HOME || os.homedir(), '.local', 'share', 'nerdr');
}

export interface LockOptions {
  /** Give up after this long; default 5 s. */
  timeoutMs?: number;
  /** A lock older than this is taken to be left by a dead writer; default 10 s. */
  staleMs?: number;
}

/** Runs `fn` while holding `<file>.lock` (nerdr's one file lock, store/lock.ts). */
export async function withLock<T>(file: string, fn: () => T, opts: LockOptions = {}): Promise<T> {
  const lock = `${file}.lock`;
  let release: () => void;
  try {
    release = acquire(lock, { waitMs: opts.timeoutMs ?? 5000, staleMs: opts.staleMs ?? 10_000 });
  } catch (err) {
    if (!(err instanceof LockTimeoutError)) throw err;
    throw new NerdrError(`${lock} has been locked for too long (by ${err.holder || 'an unknown process'})`, `if no nerdr is writing to ${path.basename(file)}, remove ${lock}`);
  }
  try {
    return fn();
  } finally {
    release();
  }
}

/** Appends one JSON line to `file` (in one write, under the lock); creates the folder private. */
export async function appendJsonLine(file: string, value: unknown, opts: LockOptions = {}): Promise<void> {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const line = JSON.stringify(value) + '\n';
  await withLock(file, () => appendFileSync(file, line, { mode: 0o600 }), opts);
}
