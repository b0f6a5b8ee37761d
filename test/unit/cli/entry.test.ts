// bin/nerdr.js picks what it runs: the bundle (dist/bundle/, scripts/bundle.mjs) when it is at
// least as new as tsc's output, tsc's modules when the bundle is missing or stale (a `tsc` alone
// since) or NERDR_UNBUNDLED=1, and a fix when nothing is built. The real bin/nerdr.js runs in a
// folder of its own whose two entries only say which one they are.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/paths.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'nerdr-entry-'));
  mkdirSync(path.join(root, 'bin'));
  copyFileSync(path.join(packageRoot, 'bin', 'nerdr.js'), path.join(root, 'bin', 'nerdr.js'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function entry(rel: string, name: string, mtimeS: number): void {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `export async function main(argv) { process.stdout.write(${JSON.stringify(name)} + ' ' + argv.slice(2).join(' ')); }\n`);
  utimesSync(file, mtimeS, mtimeS);
}

function nerdr(env: Record<string, string> = {}): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'nerdr.js'), 'ls', '--json'], { encoding: 'utf8', env: { ...process.env, NERDR_UNBUNDLED: '', ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('bin/nerdr.js', () => {
  it('runs the bundle when it is as new as tsc output or newer', () => {
    entry('dist/cli/main.js', 'modules', 1_000_000);
    entry('dist/bundle/main.js', 'bundle', 1_000_000);
    expect(nerdr()).toEqual({ code: 0, stdout: 'bundle ls --json', stderr: '' });
    entry('dist/bundle/main.js', 'bundle', 1_000_100);
    expect(nerdr().stdout).toBe('bundle ls --json');
  });

  it('runs the modules when the bundle is older than them, missing, or NERDR_UNBUNDLED=1', () => {
    entry('dist/cli/main.js', 'modules', 1_000_100);
    entry('dist/bundle/main.js', 'bundle', 1_000_000);
    expect(nerdr().stdout).toBe('modules ls --json');
    entry('dist/bundle/main.js', 'bundle', 1_000_200);
    expect(nerdr({ NERDR_UNBUNDLED: '1' }).stdout).toBe('modules ls --json');
    rmSync(path.join(root, 'dist', 'bundle'), { recursive: true });
    expect(nerdr().stdout).toBe('modules ls --json');
  });

  it('says to build it when nothing is built', () => {
    const r = nerdr();
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`nerdr: this copy of nerdr is not built yet (no dist/)\n  fix: cd ${JSON.stringify(root + '/')} && npm install\n`);
  });
});
