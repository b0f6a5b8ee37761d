// Atomic, durable file writes: a temp file in the same folder, written and fsync'd, then
// renamed over the target, then the folder fsync'd. When this returns the new content is on
// disk; when it throws (full disk, read-only or missing folder, …) the old file is untouched
// and no temp file is left behind.

import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

export function writeFileAtomic(file: string, data: string, mode = 0o600): void {
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx', mode);
    const bytes = Buffer.from(data, 'utf8');
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, file);
  } catch (err) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        /* already failed */
      }
    }
    try {
      unlinkSync(tmp);
    } catch {
      /* never created, or already renamed */
    }
    throw err;
  }
  syncDir(dir);
}

/** Makes a rename in `dir` durable. Some file systems cannot fsync a folder: that is not an error. */
function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EBADF') throw err;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** File-name time: ISO with the colons and dot made safe, sorts as text. */
export function fileTime(ms: number): string {
  return new Date(ms).toISOString().replace(/[:.]/g, '-');
}

/** Where a file that cannot be read is kept: `<base>.broken-<time>.json`, never over an earlier one. */
export function brokenPath(dir: string, base: string, now: number): string {
  let aside = path.join(dir, `${base}.broken-${fileTime(now)}.json`);
  for (let n = 1; existsSync(aside); n++) aside = path.join(dir, `${base}.broken-${fileTime(now)}-${n}.json`);
  return aside;
}
