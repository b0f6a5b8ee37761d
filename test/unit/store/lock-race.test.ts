// Several supervisors started at once over a stale lock (its owner died): exactly one may win.
// Real processes, because the race is between processes: each waits for a start file, tries
// the lock, says whether it got it, and holds what it got until told to end.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-lockrace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// the lock module, transpiled on its own (it imports only node's builtins)
const lockJs = path.join(dir, 'lock.mjs');
writeFileSync(lockJs, ts.transpileModule(readFileSync(path.join(REPO, 'src/store/lock.ts'), 'utf8'), { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } }).outputText);

// a child: say it is ready, spin until the start file exists, take the lock, report, hold it
// until stdin closes
const CHILD = `
import { existsSync } from 'node:fs';
import { tryLock } from ${JSON.stringify(lockJs)};
const [file, go] = process.argv.slice(-2);
const nap = new Int32Array(new SharedArrayBuffer(4));
process.stdout.write('ready\\n');
while (!existsSync(go)) Atomics.wait(nap, 0, 0, 1);
const r = tryLock(file);
process.stdout.write(r.ok ? 'won\\n' : 'lost\\n');
process.stdin.resume();
process.stdin.on('end', () => { if (r.ok) r.release(); process.exit(0); });
`;

function deadPid(): number {
  // a pid that is surely not running: one past the kernel's maximum is never handed out
  return 4_194_304 + 1;
}

async function round(n: number, k: number): Promise<number> {
  const file = path.join(dir, `supervisor-${k}.lock`);
  const go = path.join(dir, `go-${k}`);
  writeFileSync(file, `${deadPid()}\n`);
  const script = path.join(dir, 'child.mjs');
  if (!existsSync(script)) writeFileSync(script, CHILD);
  const kids: ChildProcess[] = [];
  const answers: Promise<string>[] = [];
  const ready: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    const c = spawn(process.execPath, [script, file, go], { cwd: REPO, stdio: ['pipe', 'pipe', 'inherit'] });
    kids.push(c);
    let out = '';
    let onReady!: () => void;
    ready.push(new Promise<void>((resolve) => (onReady = resolve)));
    answers.push(new Promise((resolve) => {
      c.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.startsWith('ready\n')) onReady();
        const rest = out.replace(/^ready\n/, '');
        if (rest.includes('\n')) resolve(rest.trim());
      });
      c.on('exit', () => {
        onReady();
        resolve(out.replace(/^ready\n/, '').trim() || 'exited');
      });
    }));
  }
  // every child loaded and spinning before the race starts
  await Promise.all(ready);
  writeFileSync(go, '');
  const said = await Promise.all(answers);
  for (const c of kids) c.stdin!.end();
  await Promise.all(kids.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.on('exit', r)))));
  expect(said.every((s) => s === 'won' || s === 'lost'), said.join(',')).toBe(true);
  return said.filter((s) => s === 'won').length;
}

describe('the supervisor lock under a start race', () => {
  it('of eight processes taking over a stale lock at once, exactly one wins, every round of twelve', async () => {
    const wins: number[] = [];
    for (let k = 0; k < 12; k++) wins.push(await round(8, k));
    expect(wins).toEqual(Array(12).fill(1));
  }, 120_000);
});
