// One supervisor per tmux server: an exclusive lock file holding the owner's pid.
// A lock whose pid is gone is stale and taken over.

import { linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
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
