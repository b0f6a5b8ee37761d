// nerdr's version, from package.json: what `nerdr --version` prints and `ping` answers.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from './paths.js';

function read(): string {
  try {
    const v = (JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version?: unknown }).version;
    return typeof v === 'string' && v ? v : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export const NERDR_VERSION: string = read();
