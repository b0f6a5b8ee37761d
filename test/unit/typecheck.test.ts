// The tests are TypeScript too: vitest strips their types without checking them, so a change to
// src that a test no longer matches (a method renamed, a field made required) ran on unnoticed.
// This checks src and every test folder together (test/tsconfig.check.json), beside the other
// unit tests rather than before them.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

it('src and the tests type-check together (tsc -p test/tsconfig.check.json)', () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'test', 'tsconfig.check.json'), '--pretty', 'false'], { cwd: ROOT, encoding: 'utf8', timeout: 170_000 });
  const errors = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.trim() !== '');
  expect(errors, errors.join('\n')).toEqual([]);
  expect(r.status).toBe(0);
}, 180_000);
