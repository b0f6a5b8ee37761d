// nerdr's one cross-process lock on a file: short critical sections (a read-modify-write of one
// state file: `withFileLock`) and the supervisor's lock, held for its life (`tryLock`: one
// supervisor per tmux server). Synchronous, so callers stay synchronous.
//
// Taking it: write our own token file, then link(2) it to the lock path: atomic, fails with
// EEXIST while someone holds it (O_EXCL semantics that also hold on NFS). The lock file holds
// "<pid> <token> <time>". A lock whose pid is gone (same host) or that is older than `staleMs`
// is taken over: it is renamed to a private name, and only if the renamed file is still the
// stale one we judged do we drop it; otherwise (we raced and caught a fresh lock) it is linked
// back. Waiting is a short retry loop with a deadline.

import { linkSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

/**
 * True while the process runs. A zombie (exited, not yet reaped: containers often reap late)
 * still answers kill(pid, 0), so on Linux its /proc state decides.
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !exitedOnProc(pid);
}

/** /proc/<pid>/stat's state is Z (zombie) or X (dead); false where /proc cannot say. */
export function exitedOnProc(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return false;
  }
  // "pid (comm) S …": comm may hold spaces and parentheses, so the state follows the last ')'
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}

/** The pid a lock file names (its first word), or null. */
export function readLockPid(file: string): number | null {
  const pid = Number.parseInt(readLock(file) ?? '', 10);
  return Number.isFinite(pid) ? pid : null;
}

export interface LockOptions {
  /** Give up after this long (default 3 s). */
  waitMs?: number;
  /** A lock older than this is stale whatever its pid (default 30 s; a save takes milliseconds). */
  staleMs?: number;
}

export class LockTimeoutError extends Error {
  constructor(readonly file: string, readonly holder: string) {
    super(`could not lock ${file} within the deadline (held by ${holder || 'unknown'})`);
    this.name = 'LockTimeoutError';
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function pause(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}


function readLock(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function isStale(file: string, content: string, staleMs: number): boolean {
  const pid = Number.parseInt(content.split(' ')[0] ?? '', 10);
  if (content && !pidAlive(pid)) return true;
  try {
    return Date.now() - statSync(file).mtimeMs > staleMs;
  } catch {
    return false; // gone: the next attempt takes it
  }
}

/** Takes the lock at `file`, runs `fn`, releases. Throws LockTimeoutError when it cannot. */
export function withFileLock<T>(file: string, fn: () => T, opts: LockOptions = {}): T {
  const release = acquire(file, opts);
  try {
    return fn();
  } finally {
    release();
  }
}

/**
 * The supervisor's lock, for as long as it runs: taken at once, or the pid of the live owner
 * (-1 when it cannot be read). A lock whose owner died is taken over safely when several
 * processes start at once: exactly one of them gets it.
 */
export function tryLock(file: string): { ok: true; release: () => void } | { ok: false; owner: number } {
  try {
    return { ok: true, release: acquire(file, { waitMs: 0, staleMs: Number.POSITIVE_INFINITY }) };
  } catch (err) {
    if (!(err instanceof LockTimeoutError)) throw err;
    return { ok: false, owner: readLockPid(file) ?? -1 };
  }
}

/** Takes the lock; returns the function that releases it. */
export function acquire(file: string, opts: LockOptions = {}): () => void {
  const waitMs = opts.waitMs ?? 3000;
  const staleMs = opts.staleMs ?? 30_000;
  const token = randomBytes(8).toString('hex');
  const content = `${process.pid} ${token} ${Date.now()}\n`;
  const mine = `${file}.${process.pid}-${token}`;
  writeFileSync(mine, content, { mode: 0o600 });
  const deadline = Date.now() + waitMs;
  let delay = 2;
  try {
    for (;;) {
      try {
        linkSync(mine, file);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const held = readLock(file);
      if (held !== undefined && isStale(file, held, staleMs)) {
        takeOver(file, held, token);
        continue;
      }
      if (Date.now() >= deadline) throw new LockTimeoutError(file, (held ?? '').trim());
      pause(delay);
      delay = Math.min(delay * 2, 25);
    }
  } finally {
    try {
      unlinkSync(mine);
    } catch {
      /* already gone */
    }
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // only remove the lock if it is still ours (a takeover after a long stall is possible)
    if (readLock(file) === content) {
      try {
        unlinkSync(file);
      } catch {
        /* gone */
      }
    }
  };
}

function takeOver(file: string, judged: string, token: string): void {
  const aside = `${file}.stale-${process.pid}-${token}`;
  try {
    renameSync(file, aside);
  } catch {
    return; // someone else took it over first
  }
  if (readLock(aside) !== judged) {
    // we caught a fresh lock in the race: put it back unless another holder exists already
    try {
      linkSync(aside, file);
    } catch {
      /* a newer holder; the one we caught loses its file but keeps running to completion */
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    /* gone */
  }
}
