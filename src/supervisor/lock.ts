// One supervisor per tmux server: an exclusive lock file holding the owner's pid.
// A lock whose pid is gone is stale and taken over.

import { linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';

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

export function readLockPid(file: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    return Number.isFinite(pid) ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Takes the lock or returns the pid of the live owner. The pid is written to a temp file that
 * is then hard-linked to the lock path, so the lock never exists without its pid: a reader can
 * not mistake a lock being created for a stale one.
 */
export function acquireLock(file: string): { ok: true; release: () => void } | { ok: false; owner: number } {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${process.pid}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(tmp, file);
        return {
          ok: true,
          release: () => {
            if (readLockPid(file) === process.pid) {
              try {
                unlinkSync(file);
              } catch {
                /* already gone */
              }
            }
          },
        };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const owner = readLockPid(file);
        if (owner !== null && owner !== process.pid && pidAlive(owner)) return { ok: false, owner };
        if (owner === null && recentlyChanged(file)) return { ok: false, owner: -1 };
        try {
          unlinkSync(file); // stale: its owner died
        } catch {
          /* someone else removed it first */
        }
      }
    }
    return { ok: false, owner: readLockPid(file) ?? -1 };
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      /* gone */
    }
  }
}

function recentlyChanged(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs < 5000;
  } catch {
    return false;
  }
}
