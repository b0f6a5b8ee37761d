// A clone that was never built (a TPM install): bin/nerdr.js says what to run, no stack trace.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('bin/nerdr.js without dist/', () => {
  const clone = mkdtempSync(path.join(os.tmpdir(), 'nerdr-unbuilt-'));
  // bin/ as a clone has it: the entry and the package.json that makes it CommonJS
  cpSync(path.join(ROOT, 'bin'), path.join(clone, 'bin'), { recursive: true });
  afterAll(() => rmSync(clone, { recursive: true, force: true }));

  it('a command says the copy is not built and how to build it, exit 1', () => {
    const r = spawnSync(process.execPath, [path.join(clone, 'bin', 'nerdr.js'), 'ls'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`nerdr: this copy of nerdr is not built yet (no dist/)\n  fix: cd ${JSON.stringify(clone)} && npm install\n`);
  });

  it('a hook stays out of the agent\'s way: exit 0, nothing printed', () => {
    const out = execFileSync(process.execPath, [path.join(clone, 'bin', 'nerdr.js'), 'hook', 'claude'], { input: '{}', encoding: 'utf8' });
    expect(out).toBe('');
  });
});
