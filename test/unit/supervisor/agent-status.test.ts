// Claude Code's sessions/<pid>.json: parsing (on a recorded run), and the watcher on a real
// process and a real folder (no tmux): found by pid and start time, read again on each change.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentStatusWatcher, parseStatusFile, startTicks, statusFor } from '../../../src/supervisor/agent-status.js';
import { claudeSessionsDir as sessionsDir } from '../../../src/integrations/claude.js';
import { systemClock } from '../../../src/supervisor/clock.js';
import type { AgentStatus } from '../../../src/state/index.js';

const FIXTURE = path.join(__dirname, '../../fixtures/claude-sessions/2.1.332-selftest.jsonl');
const recorded = readFileSync(FIXTURE, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { phase: string; text: string });

describe('a status file', () => {
  it('parses every write of a recorded selftest run; the one caught half written is refused', () => {
    const parsed = recorded.map((r) => parseStatusFile(r.text));
    expect(parsed.map((p) => (p ? p.status ?? 'none' : 'torn'))).toEqual([
      'none', 'idle', 'busy', 'idle', 'busy', 'waiting', 'busy', 'idle', 'busy', 'torn', 'waiting', 'idle',
    ]);
    expect(parsed[5]).toMatchObject({ pid: 13075, procStart: '6108594', waitingFor: 'permission prompt', version: '2.1.332' });
  });

  it('is this process\'s only with its pid and start ticks, and says something only with a status', () => {
    const f = parseStatusFile(recorded[5]!.text)!;
    expect(statusFor(f, 13075, '6108594', '/h/.claude/sessions/13075.json')).toEqual({
      status: 'waiting', waitingFor: 'permission prompt', updatedAt: 1796182476985, file: '/h/.claude/sessions/13075.json',
    });
    expect(statusFor(f, 13075, '6108595', 'x')).toBeNull(); // a reused pid
    expect(statusFor(f, 13076, '6108594', 'x')).toBeNull();
    expect(statusFor(f, 13075, null, 'x')).toBeNull();
    expect(statusFor(parseStatusFile(recorded[0]!.text)!, 13075, '6108594', 'x')).toBeNull();
    expect(parseStatusFile('{"pid":"1","procStart":"2"}')).toBeNull();
    expect(parseStatusFile('{"pid":1,"procStart":"2","status":"thinking"}')).toBeNull();
  });

  it('lives in $CLAUDE_CONFIG_DIR/sessions or ~/.claude/sessions; start ticks are stat field 22', () => {
    expect(sessionsDir({ HOME: '/home/u' })).toBe('/home/u/.claude/sessions');
    expect(sessionsDir({ HOME: '/home/u', CLAUDE_CONFIG_DIR: '/cfg' })).toBe('/cfg/sessions');
    expect(sessionsDir({ HOME: 'relative' })).toBeNull();
    expect(sessionsDir({})).toBeNull();
    const stat = '4242 (claude (v2) x) S 1 4242 4242 34816 4242 4194304 100 0 0 0 5 3 0 0 20 0 11 0 6108594 1000 200';
    expect(startTicks(stat)).toBe('6108594');
    expect(startTicks('garbage')).toBeNull();
  });
});

describe('the watcher', () => {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  let watcher: AgentStatusWatcher | null = null;
  afterEach(() => {
    watcher?.dispose();
    watcher = null;
    for (const c of children.splice(0)) c.kill('SIGKILL');
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  async function until<T>(fn: () => T | undefined | false, what: string, ms = 5000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = fn();
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  function setup() {
    const home = mkdtempSync(path.join(os.tmpdir(), 'nerdr-status-'));
    dirs.push(home);
    const child = spawn('sleep', ['60'], { env: { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: '' }, stdio: 'ignore' });
    children.push(child);
    const pid = child.pid!;
    const ticks = startTicks(readFileSync(`/proc/${pid}/stat`, 'utf8'))!;
    const file = path.join(home, '.claude', 'sessions', `${pid}.json`);
    const got: (AgentStatus | null)[] = [];
    watcher = new AgentStatusWatcher({ clock: systemClock, log: () => undefined, deliver: (pane, s) => { if (pane === '%1') got.push(s); } });
    let n = 0;
    const write = (status: string, extra: Record<string, unknown> = {}, procStart = ticks): void => {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify({ pid, procStart, sessionId: 's', status, statusUpdatedAt: ++n, ...extra }));
    };
    return { pid, ticks, file, got, write, win: { paneId: '%1', panePid: pid, agent: 'claude', dead: false, generation: 0 } };
  }

  it('finds the file once it appears, then follows each change; its removal says so', async () => {
    const s = setup();
    watcher!.track(s.win);
    s.write('idle'); // after the first look: found on a later one
    await until(() => s.got.length === 1, 'the first status');
    expect(s.got[0]).toMatchObject({ status: 'idle', file: s.file });
    expect(watcher!.files().get('%1')).toBe(s.file);
    s.write('busy');
    await until(() => s.got.length === 2, 'busy');
    s.write('waiting', { waitingFor: 'permission prompt' });
    await until(() => s.got.length === 3, 'waiting');
    expect(s.got[2]).toMatchObject({ status: 'waiting', waitingFor: 'permission prompt' });
    // half written, then whole: only the whole one is news
    writeFileSync(s.file, '{"pid":' + s.pid + ',"procStart":"' + s.ticks + '","status":"id');
    s.write('idle');
    await until(() => s.got.length === 4, 'idle');
    expect(s.got.map((g) => g?.status)).toEqual(['idle', 'busy', 'waiting', 'idle']);
    unlinkSync(s.file);
    await until(() => s.got.length === 5, 'the removal');
    expect(s.got[4]).toBeNull();
    // a new file of the same process is found again
    s.write('busy');
    await until(() => s.got.length === 6, 'the file again', 15000);
  });

  it('a file of another process with the same pid (another start time) is not read', async () => {
    const s = setup();
    s.write('busy', {}, String(Number(s.ticks) + 1));
    watcher!.track(s.win);
    // it is looked for again (a backoff): the right file then is taken
    await new Promise((r) => setTimeout(r, 400));
    expect(s.got).toEqual([]);
    s.write('busy');
    await until(() => s.got.length === 1, 'the right file', 15000);
  });

  it('only Claude windows that run are watched; one that exits is forgotten (the arbiter drops its status itself)', async () => {
    const s = setup();
    s.write('busy');
    watcher!.track({ ...s.win, agent: 'codex' });
    watcher!.track({ ...s.win, paneId: '%2', dead: true });
    await new Promise((r) => setTimeout(r, 400));
    expect(s.got).toEqual([]);
    expect(watcher!.files().size).toBe(0);
    watcher!.track(s.win);
    await until(() => s.got.length === 1, 'busy');
    watcher!.track({ ...s.win, dead: true });
    expect(watcher!.files().size).toBe(0);
    s.write('idle');
    await new Promise((r) => setTimeout(r, 200));
    expect(s.got).toHaveLength(1);
  });
});
