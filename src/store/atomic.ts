// Atomic file writes: a temp file in the same folder, then rename over the target.

import { mkdirSync, renameSync, writeFileSync, unlinkSync } from 'node:fs';
import path from 'node:path';

export function writeFileAtomic(file: string, data: string, mode = 0o600): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  try {
    writeFileSync(tmp, data, { mode });
    renameSync(tmp, file);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* never created */
    }
    throw err;
  }
}
