// The supervisor's log: <state>/core-<server>.log, one line per event, size-capped.

import { appendFileSync, renameSync, statSync } from 'node:fs';

const MAX_BYTES = 5 * 1024 * 1024;

export type Logger = (level: 'info' | 'warn' | 'error', message: string) => void;

export function fileLogger(file: string, echo = false): Logger {
  let written = 0;
  try {
    written = statSync(file).size;
  } catch {
    written = 0;
  }
  return (level, message) => {
    const line = `${new Date().toISOString()} ${level} ${message}\n`;
    if (echo) process.stderr.write(line);
    try {
      if (written > MAX_BYTES) {
        renameSync(file, file + '.1');
        written = 0;
      }
      appendFileSync(file, line, { mode: 0o600 });
      written += line.length;
    } catch {
      // a full disk must not take the supervisor down
    }
  };
}
