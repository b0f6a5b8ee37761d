// nerdr's one cross-process lock on a file: short critical sections (a read-modify-write of one
// state file: `withFileLock`) and the supervisor's lock, held for its life (`tryLock`: one
// supervisor per tmux server). Synchronous, so callers stay synchronous.
//
// Taking it: write our own token file, then link(2) it to the lock path: atomic, fails with
// EEXIST while someone holds it (O_EXCL semantics that also hold on NFS). The lock file holds
// "<pid> <token> <time> <start>", start being the holder's start in clock ticks since boot (Linux;
// `-` elsewhere): a pid is free again once its process died, and on a busy machine the kernel
// hands it out again within minutes (pid_max 32768 wrapped every 2 minutes in CI), so a pid alone
// is no holder. A lock whose holder is gone (same host: its pid free or another process's now) or
// that is older than `staleMs` is taken over, one process at a time (a `<file>.takeover` guard,
// taken the same way): under the guard it is removed only if it is still the one judged stale,
// and then every contender links again, one winning. Waiting is a short retry loop with a
// deadline.

import { linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

/**
 * What nerdr reads of a /proc/<pid>/stat line: the state (field 3) and the start in clock ticks
 * since boot (field 22, null when it is not a number), or null when the text is no such line.
 * The comm in "pid (comm) S …" may hold spaces and parentheses, so the fields follow the last ')'.
 * Pure.
 */
export function statFields(text: string): { state: string; start: string | null } | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const fields = text.slice(close + 2).split(' ');
  const start = fields[19];
  return { state: fields[0] ?? '', start: start && /^\d+$/.test(start) ? start : null };
}

/** statFields of a running or zombie process; null where /proc cannot say (another system, gone). */
function readStat(pid: number): { state: string; start: string | null } | null {
  try {
    return statFields(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return null;
  }
}

/** Whether kill(pid, 0) finds the pid (EPERM: another user's, there all the same). */
function signalable(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return true;
}

const exited = (state: string): boolean => state === 'Z' || state === 'X';

/**
 * True while the process runs. A zombie (exited, not yet reaped: containers often reap late)
 * still answers kill(pid, 0), so on Linux its /proc state decides.
 */
export function pidAlive(pid: number): boolean {
  return signalable(pid) && !exitedOnProc(pid);
}

/** /proc/<pid>/stat's state is Z (zombie) or X (dead); false where /proc cannot say. */
export function exitedOnProc(pid: number): boolean {
  const s = readStat(pid);
  return s !== null && exited(s.state);
}

/**
 * When a process started, in clock ticks since boot (/proc/<pid>/stat's field 22), as a string:
 * with its pid, which process it is (a pid is handed out again once free; a start time is not).
 * Null where /proc cannot say (another system, or the process is gone).
 */
export function processStartTicks(pid: number): string | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return readStat(pid)?.start ?? null;
}

/**
 * Whether the process a pid was taken from (when its start, processStartTicks, was `start`) still
 * runs: that pid alive, and started then. Without a start to compare (an old lock file, a system
 * without /proc), the pid alone says.
 */
export function sameProcessAlive(pid: number, start: string | null | undefined): boolean {
  if (!start || start === '-') return pidAlive(pid);
  if (!signalable(pid)) return false;
  // one read of /proc for both: not a zombie, and the same start
  const s = readStat(pid);
  return s === null || (!exited(s.state) && (s.start === null || s.start === start));
}

/** The holder a lock's content names: `<pid> <token> <time> <start>` (older ones stop after the pid or the time). */
function holderOf(content: string): { pid: number; start: string | undefined } {
  const [pid, , , start] = content.trim().split(' ');
  return { pid: Number.parseInt(pid ?? '', 10), start };
}

/** The pid a lock file names (its first word), or null. */
export function readLockPid(file: string): number | null {
  const pid = Number.parseInt(readLock(file) ?? '', 10);
  return Number.isFinite(pid) ? pid : null;
}

/**
 * The pid of the process that holds the lock at `file` while it runs, or null: none, or the one
 * that wrote it is gone, even if its pid now names another process (which must never be sent a
 * signal as if it were the holder).
 */
export function readLockHolder(file: string): number | null {
  const content = readLock(file);
  if (!content) return null;
  const h = holderOf(content);
  return sameProcessAlive(h.pid, h.start) ? h.pid : null;
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
/** A takeover takes microseconds: a guard this old was left by a process that died in one. */
const GUARD_STALE_MS = 5000;

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
  const h = holderOf(content);
  if (content && !sameProcessAlive(h.pid, h.start)) return true;
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

/** This process's start (processStartTicks), read once. */
let selfStart: string | undefined;

/** Takes the lock; returns the function that releases it. */
export function acquire(file: string, opts: LockOptions = {}): () => void {
  const waitMs = opts.waitMs ?? 3000;
  const staleMs = opts.staleMs ?? 30_000;
  const token = randomBytes(8).toString('hex');
  selfStart ??= processStartTicks(process.pid) ?? '-';
  const content = `${process.pid} ${token} ${Date.now()} ${selfStart}\n`;
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
        if (!takeOver(file, held, mine, content)) pause(1);
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

/**
 * Removes a stale lock, one process at a time: the takeover itself is guarded by `<file>.takeover`
 * (taken by link(2) like the lock), so two processes that judged the same lock stale cannot
 * remove each other's fresh one. Under the guard, the file is removed only if it is still the
 * one judged stale. Returns false when another process holds the guard (wait, then look again).
 */
function takeOver(file: string, judged: string, mine: string, content: string): boolean {
  const guard = `${file}.takeover`;
  try {
    linkSync(mine, guard);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // a guard left by a process that died during its takeover
    const g = readLock(guard);
    if (g !== undefined && isStale(guard, g, GUARD_STALE_MS)) {
      try {
        if (readLock(guard) === g) unlinkSync(guard);
      } catch {
        /* gone */
      }
    }
    return false;
  }
  try {
    if (readLock(file) === judged) unlinkSync(file);
  } catch {
    /* gone: someone's release, or a takeover before ours */
  } finally {
    try {
      if (readLock(guard) === content) unlinkSync(guard);
    } catch {
      /* gone */
    }
  }
  return true;
}
