// The data dir and the append-only JSON-line files `nerdr why` and `nerdr order` write.
// Several agents may append at the same moment, so each append takes a lock file created
// with O_EXCL; a lock left behind by a killed writer is taken over once it is stale.

import { appendFileSync, mkdirSync, openSync, closeSync, rmSync, statSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NerdrError } from '../errors.js';

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

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` while holding `<file>.lock`. */
export async function withLock<T>(file: string, fn: () => T, opts: LockOptions = {}): Promise<T> {
  const lock = `${file}.lock`;
  const deadline = Date.now() + (opts.timeoutMs ?? 5000);
  const staleMs = opts.staleMs ?? 10_000;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      try {
        if (Date.now() - statSync(lock).mtimeMs > staleMs) rmSync(lock, { force: true });
      } catch {
        /* released meanwhile */
      }
      if (Date.now() >= deadline) {
        throw new NerdrError(`${lock} has been locked for too long`, `if no nerdr is writing to ${path.basename(file)}, remove ${lock}`);
      }
      await pause(10 + Math.random() * 20);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** Appends one JSON line to `file` (in one write, under the lock); creates the folder private. */
export async function appendJsonLine(file: string, value: unknown, opts: LockOptions = {}): Promise<void> {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const line = JSON.stringify(value) + '\n';
  await withLock(file, () => appendFileSync(file, line, { mode: 0o600 }), opts);
}
