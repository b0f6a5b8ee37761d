import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeSlug, codexFileCwd, findLogs, logEntries, usageRecords } from '../../../src/extras/logs.js';
import { searchLogs, snippet } from '../../../src/extras/search.js';
import { parseSince, shortCount, sumUsage } from '../../../src/extras/usage.js';
import { claudeLog, codexLog } from './fixtures.js';

let home: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  home = mkdtempSync(path.join(os.tmpdir(), 'nerdr-extras-'));
  env = { HOME: home };
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('finding logs', () => {
  it("names Claude's project folder after the cwd", () => {
    expect(claudeSlug('/home/me/src/my.app')).toBe('-home-me-src-my-app');
  });

  it('keeps only the logs of the given folders (Claude by folder name, Codex by session_meta)', () => {
    const a = claudeLog(home, '/work/app', 's-app');
    claudeLog(home, '/work/other', 's-other');
    const c = codexLog(home, '/work/app', 'id-app');
    codexLog(home, '/work/other', 'id-other');
    expect(codexFileCwd(c)).toBe('/work/app');
    expect(findLogs(null, env)).toHaveLength(4);
    const mine = findLogs(['/work/app'], env).map((l) => [l.tool, l.file]);
    expect(mine.sort()).toEqual([['claude', a], ['codex', c]].sort());
  });

  it('follows CLAUDE_CONFIG_DIR and CODEX_HOME', () => {
    claudeLog(home, '/x', 's');
    expect(findLogs(null, { HOME: '/nonexistent', CLAUDE_CONFIG_DIR: path.join(home, '.claude'), CODEX_HOME: path.join(home, '.codex') })).toHaveLength(1);
  });
});

describe('reading entries', () => {
  it('gives Claude messages, tool calls and tool results with time, role and cwd', async () => {
    const file = claudeLog(home, '/work/app', 's1');
    const all = [];
    for await (const e of logEntries({ tool: 'claude', file })) all.push(e);
    expect(all.map((e) => e.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(all[0]).toMatchObject({ line: 2, time: '2026-11-30T08:00:00.000Z', cwd: '/work/app', session: 's1', text: 'Please fix the flaky parser test' });
    expect(all[2]!.text).toContain('npm test');
    expect(all[3]!.text).toBe('all 12 tests passed');
  });

  it("gives Codex messages and calls, without its injected context", async () => {
    const file = codexLog(home, '/work/app', 'id1');
    const all = [];
    for await (const e of logEntries({ tool: 'codex', file })) all.push(e);
    expect(all.map((e) => [e.role, e.text])).toEqual([
      ['user', 'add a README section about the parser'],
      ['tool', 'exec_command {"cmd":"ls"}'],
      ['assistant', 'Added the parser section to README.md.'],
    ]);
    expect(all[0]).toMatchObject({ cwd: '/work/app', session: 'id1' });
  });
});

describe('usage', () => {
  it('counts a Claude message once although several lines repeat its usage', async () => {
    const recs = await usageRecords({ tool: 'claude', file: claudeLog(home, '/w', 's') });
    expect(recs).toHaveLength(2);
    expect(recs.reduce((n, r) => n + r.output, 0)).toBe(100);
  });

  it("counts Codex usage as the growth of its running total, cached input apart", async () => {
    const recs = await usageRecords({ tool: 'codex', file: codexLog(home, '/w', 'id') });
    expect(recs.map((r) => [r.input, r.cacheRead, r.output])).toEqual([
      [600, 400, 100],
      [500, 1000, 200],
    ]);
  });

  it('sums per CLI and folder, names the agents there, and honours --since', async () => {
    claudeLog(home, '/work/app', 's1');
    claudeLog(home, '/work/app', 's2');
    codexLog(home, '/work/app', 'id1');
    const rows = await sumUsage(findLogs(null, env), { names: new Map([['/work/app', ['fixer']]]) });
    const claude = rows.find((r) => r.tool === 'claude')!;
    expect(claude).toMatchObject({ cwd: '/work/app', agents: ['fixer'], conversations: 2, input: 40, cacheWrite: 400, cacheRead: 4000, output: 200 });
    expect(claude.total).toBe(4640);
    const later = await sumUsage(findLogs(null, env), { since: new Date('2026-11-30T09:30:00Z') });
    expect(later).toEqual([expect.objectContaining({ tool: 'codex', input: 500, cacheRead: 1000, output: 200 })]);
  });

  it('reads dates and ages for --since', () => {
    const now = Date.parse('2026-11-30T12:00:00Z');
    expect(parseSince('2d', now)?.toISOString()).toBe('2026-11-28T12:00:00.000Z');
    expect(parseSince('2026-11-01', now)?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseSince('last tuesday', now)).toBeNull();
    const y = parseSince('yesterday', now)!;
    expect([y.getHours(), y.getMinutes(), Math.round((now - y.getTime()) / 3_600_000) >= 24]).toEqual([0, 0, true]);
    expect(shortCount(999)).toBe('999');
    expect(shortCount(4640)).toBe('4.6k');
    expect(shortCount(2_500_000)).toBe('2.5M');
  });
});

describe('search', () => {
  it('finds text in both CLIs, newest first, with file, line, role and a snippet', async () => {
    claudeLog(home, '/work/app', 's1');
    codexLog(home, '/work/app', 'id1');
    const hits = await searchLogs(findLogs(null, env), 'PARSER');
    expect(hits.map((h) => [h.tool, h.role])).toEqual([
      ['codex', 'user'],
      ['codex', 'assistant'],
      ['claude', 'user'],
      ['claude', 'assistant'],
    ]);
    expect(hits[2]!.snippet).toBe('Please fix the flaky parser test');
    expect(await searchLogs(findLogs(null, env), 'nothing like this')).toEqual([]);
  });

  it('cuts long text around the match onto one line', () => {
    const text = 'a'.repeat(100) + '\nneedle\n' + 'b'.repeat(200);
    const s = snippet(text, 101, 6);
    expect(s.startsWith('…')).toBe(true);
    expect(s.endsWith('…')).toBe(true);
    expect(s).toContain(' needle ');
  });
});
