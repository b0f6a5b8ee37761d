// The one way the panel reads a file a walkthrough step names: only a regular file inside the
// window's folder (or its checkout), never blocking, never more than MAX_SHOWN_BYTES. A step is
// written by an agent, so its path can be anything: /dev/zero would be read forever and a FIFO
// would block the open in one of libuv's four threads, so that the panel could not even exit.

import { constants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** The most of a file the panel reads to show it. */
export const MAX_SHOWN_BYTES = 2 * 1024 * 1024;

export type ShownFile = { text: string } | { refused: string };

function inside(file: string, folder: string): boolean {
  const rel = path.relative(folder, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function kindOf(st: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The text of `file` if it is a regular file inside one of `folders` (after following links),
 * at most `max` bytes and not binary; else why it is not shown. Never blocks on a FIFO: its type
 * is looked at first (stat does not open it), and the open is O_NONBLOCK in any case, so a file
 * swapped for a FIFO in between opens at once and is refused by its fstat.
 */
export async function readShownFile(file: string, folders: readonly string[], max = MAX_SHOWN_BYTES): Promise<ShownFile> {
  let real: string;
  try {
    real = await realpath(file);
  } catch (err) {
    return { refused: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file (any more)' : (err as Error).message };
  }
  const roots = await Promise.all(folders.map((f) => realpath(f).catch(() => null)));
  if (!roots.some((r) => r !== null && inside(real, r))) return { refused: `not shown: outside the window's folder (${folders[0] ?? ''})` };
  const before = await stat(real).catch((err: Error) => err);
  if (before instanceof Error) return { refused: before.message };
  if (!before.isFile()) return { refused: `not shown: ${kindOf(before)}, not a regular file` };
  if (before.size > max) return { refused: `too large to show (${before.size} bytes; the panel shows files up to ${max} bytes)` };
  let fh;
  try {
    fh = await open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (err) {
    return { refused: (err as Error).message };
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return { refused: `not shown: ${kindOf(st)}, not a regular file` };
    // the file may have grown since: one byte past the cap says so
    const buf = Buffer.alloc(Math.min(max, st.size) + 1);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    if (got > max) return { refused: `too large to show (over ${max} bytes)` };
    const data = buf.subarray(0, got);
    if (data.includes(0)) return { refused: 'binary: not shown' };
    return { text: data.toString('utf8') };
  } finally {
    await fh.close();
  }
}
