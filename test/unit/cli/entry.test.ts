// bin/nerdr.js picks what it runs: the bundle (dist/bundle/, scripts/bundle.mjs) when it is at
// least as new as tsc's output, tsc's modules when the bundle is missing or stale (a `tsc` alone
// since) or NERDR_UNBUNDLED=1, and a fix when nothing is built; `ls` and `status` try the fast
// reads first (src/cli/read-fast.ts: the bundle's is CommonJS, require()d), chosen the same way,
// and go on to the CLI when those hand them back. The real bin/nerdr.js (with bin/package.json,
// which makes it CommonJS) runs in a folder of its own whose entries only say which one they are.
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
  for (const f of ['nerdr.js', 'package.json']) copyFileSync(path.join(packageRoot, 'bin', f), path.join(root, 'bin', f));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function entry(rel: string, name: string, mtimeS: number): void {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `export async function main(argv) { process.stdout.write(${JSON.stringify(name)} + ' ' + argv.slice(2).join(' ')); }\n`);
  utimesSync(file, mtimeS, mtimeS);
}

/** A fast-read entry that answers (prints its name) or hands the command back; CommonJS as .cjs. */
function fastEntry(rel: string, name: string, mtimeS: number, answers: boolean): void {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  const fn = `async function runFastRead(args) { if (${answers}) process.stdout.write(${JSON.stringify(name)} + ' ' + args.join(' ')); return ${answers}; }`;
  writeFileSync(file, file.endsWith('.cjs') ? `exports.runFastRead = ${fn};\n` : `export ${fn}\n`);
  utimesSync(file, mtimeS, mtimeS);
}

function nerdr(env: Record<string, string> = {}, args = ['explain', 'x']): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'nerdr.js'), ...args], { encoding: 'utf8', env: { ...process.env, NERDR_UNBUNDLED: '', ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('bin/nerdr.js', () => {
  it('runs the bundle when it is as new as tsc output or newer', () => {
    entry('dist/cli/main.js', 'modules', 1_000_000);
    entry('dist/bundle/main.js', 'bundle', 1_000_000);
    expect(nerdr()).toEqual({ code: 0, stdout: 'bundle explain x', stderr: '' });
    entry('dist/bundle/main.js', 'bundle', 1_000_100);
    expect(nerdr().stdout).toBe('bundle explain x');
  });

  it('runs the modules when the bundle is older than them, missing, or NERDR_UNBUNDLED=1', () => {
    entry('dist/cli/main.js', 'modules', 1_000_100);
    entry('dist/bundle/main.js', 'bundle', 1_000_000);
    expect(nerdr().stdout).toBe('modules explain x');
    entry('dist/bundle/main.js', 'bundle', 1_000_200);
    expect(nerdr({ NERDR_UNBUNDLED: '1' }).stdout).toBe('modules explain x');
    rmSync(path.join(root, 'dist', 'bundle'), { recursive: true });
    expect(nerdr().stdout).toBe('modules explain x');
  });

  /** A whole build, its bundles as new as tsc's output; its fast reads answer or hand back. */
  function built(fastAnswers: boolean): void {
    entry('dist/cli/main.js', 'modules', 1_000_000);
    entry('dist/bundle/main.js', 'bundle', 1_000_000);
    fastEntry('dist/cli/read-fast.js', 'fast-modules', 1_000_000, fastAnswers);
    fastEntry('dist/bundle/fast/read-fast.cjs', 'fast-bundle', 1_000_000, fastAnswers);
  }

  it('answers ls and status with the fast reads, chosen as the CLI is', () => {
    built(true);
    expect(nerdr({}, ['-L', 'w', 'ls', '--json'])).toEqual({ code: 0, stdout: 'fast-bundle -L w ls --json', stderr: '' });
    expect(nerdr({}, ['status']).stdout).toBe('fast-bundle status');
    expect(nerdr({ NERDR_UNBUNDLED: '1' }, ['status']).stdout).toBe('fast-modules status');
    fastEntry('dist/cli/read-fast.js', 'fast-modules', 1_000_100, true);
    expect(nerdr({}, ['status']).stdout).toBe('fast-modules status');
    // other commands never load them
    expect(nerdr().stdout).toBe('bundle explain x');
  });

  it('runs the CLI when the fast reads hand the command back', () => {
    built(false);
    expect(nerdr({}, ['ls'])).toEqual({ code: 0, stdout: 'bundle ls', stderr: '' });
  });

  it('an error is printed as Node prints an uncaught one, exit 1', () => {
    mkdirSync(path.join(root, 'dist', 'cli'), { recursive: true });
    writeFileSync(path.join(root, 'dist', 'cli', 'main.js'), `export async function main() { throw new Error('broken on purpose'); }\n`);
    const r = nerdr();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Error: broken on purpose\n\s+at main /);
  });

  it('says to build it when nothing is built', () => {
    const r = nerdr();
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`nerdr: this copy of nerdr is not built yet (no dist/)\n  fix: cd ${JSON.stringify(root)} && npm install\n`);
  });
});
