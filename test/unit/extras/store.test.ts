import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendJsonLine, dataDir, withLock } from '../../../src/extras/store.js';
import { register } from '../../../src/cli/why.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('data dir', () => {
  it('is NERDR_DATA_DIR, else XDG_DATA_HOME/nerdr, else ~/.local/share/nerdr', () => {
    expect(dataDir({ NERDR_DATA_DIR: '/d', XDG_DATA_HOME: '/x', HOME: '/h' })).toBe('/d');
    expect(dataDir({ XDG_DATA_HOME: '/x', HOME: '/h' })).toBe('/x/nerdr');
    expect(dataDir({ HOME: '/h' })).toBe('/h/.local/share/nerdr');
  });
});

describe('appending under a lock', () => {
  it('keeps every line whole when many writers append at once', async () => {
    const file = path.join(dir, 'sub', 'why.jsonl');
    await Promise.all(Array.from({ length: 40 }, (_, i) => appendJsonLine(file, { i, text: 'x'.repeat(5000) })));
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(40);
    expect(new Set(lines.map((l) => (JSON.parse(l) as { i: number }).i)).size).toBe(40);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('takes over a lock left by a dead writer once it is stale', async () => {
    const file = path.join(dir, 'order.jsonl');
    writeFileSync(`${file}.lock`, '999999');
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, old, old);
    await appendJsonLine(file, { ok: true });
    expect(readFileSync(file, 'utf8')).toBe('{"ok":true}\n');
  });

  it('gives up with a NerdrError naming the lock when it stays held', async () => {
    const file = path.join(dir, 'why.jsonl');
    writeFileSync(`${file}.lock`, '1');
    await expect(withLock(file, () => 1, { timeoutMs: 100 })).rejects.toThrow(/locked for too long/);
  });
});

describe('nerdr why / order', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  async function run(...argv: string[]): Promise<void> {
    const program = new Command('nerdr').option('-L <name>').option('-S <path>').exitOverride();
    register(program);
    await program.parseAsync(['node', 'nerdr', ...argv]);
  }

  it('appends {time, agent, cwd, text} to why.jsonl and order.jsonl in the data dir', async () => {
    for (const k of ['TMUX', 'TMUX_PANE', 'NERDR_TMUX_SOCKET']) delete process.env[k];
    process.env.NERDR_DATA_DIR = dir;
    process.env.NERDR_AGENT = 'claude';
    await run('why', 'kept', 'the', 'old', 'API');
    await run('order', 'run the tests before committing');
    const why = JSON.parse(readFileSync(path.join(dir, 'why.jsonl'), 'utf8')) as Record<string, unknown>;
    expect(why).toMatchObject({ agent: 'claude', cwd: process.cwd(), text: 'kept the old API', window: null, conversation: null });
    expect(Date.parse(why.time as string)).not.toBeNaN();
    const order = JSON.parse(readFileSync(path.join(dir, 'order.jsonl'), 'utf8')) as Record<string, unknown>;
    expect(order.text).toBe('run the tests before committing');
  });
});
