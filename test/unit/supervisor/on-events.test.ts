// [[on]]: the rules in config.toml, once per state entry (also across a supervisor restart), the
// event on stdin and in NERDR_EVENT_*, the timeout's SIGTERM then SIGKILL, the pool's bound, and
// failures kept for doctor. No process runs: the spawner is a fake, and so is the clock.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig, ON_TIMEOUT_DEFAULT_MS, type OnRule, loadConfig } from '../../../src/config.js';
import type { AgentRow } from '../../../src/protocol/index.js';
import { configRules, lastLines, OnEvents, type OnDetail, type OnSubject } from '../../../src/supervisor/on-events.js';
import { describeOutcome, KILL_AFTER_MS, RunPool, spawnProcess, type ChildEvents, type RunOutcome, type RunSpec, type Spawner } from '../../../src/supervisor/on-events-run.js';
import { systemClock } from '../../../src/supervisor/clock.js';
import { FiredStore, onFiles, readFailures, recordFailure, type OnFailure } from '../../../src/supervisor/on-events-store.js';
import { onEventsCheck } from '../../../src/cli/doctor-on.js';
import { FakeTime } from './harness.js';

describe('[[on]] in config.toml', () => {
  it('reads rules with their defaults, filters and timeouts', () => {
    const { config, problems } = parseConfig(`
[[on]]
event = "blocked"
run = ["curl", "-d", "@-", "http://127.0.0.1:9/x"]

[[on]]
event = "done"
run = ["notify"]
timeout = "500ms"
agent = "claude"
session = "work"

[[on]]
event = "limited"
run = ["x"]
timeout = 3
`);
    expect(problems).toEqual([]);
    expect(config.on).toEqual([
      { event: 'blocked', run: ['curl', '-d', '@-', 'http://127.0.0.1:9/x'], timeoutMs: ON_TIMEOUT_DEFAULT_MS, agent: null, session: null },
      { event: 'done', run: ['notify'], timeoutMs: 500, agent: 'claude', session: 'work' },
      { event: 'limited', run: ['x'], timeoutMs: 3000, agent: null, session: null },
    ]);
  });

  it('refuses a run given as a string, naming the fix; a bad rule is left out and the rest apply', () => {
    const { config, problems } = parseConfig(`
[[on]]
event = "blocked"
run = "curl -d hi https://ntfy.sh/x"

[[on]]
event = "sometimes"
run = ["x"]

[[on]]
event = "exited"
run = []

[[on]]
event = "done"
run = ["ok"]
timeout = "1h"
colour = "red"
`);
    expect(config.on).toEqual([{ event: 'done', run: ['ok'], timeoutMs: ON_TIMEOUT_DEFAULT_MS, agent: null, session: null }]);
    const byKey = Object.fromEntries(problems.map((p) => [p.key, p]));
    expect(byKey['on[0].run']!.message).toMatch(/must be a list.*no shell.*\["sh", "-c"/);
    expect(byKey['on[0].run']!.used).toBe('"rule left out"');
    expect(byKey['on[1].event']!.message).toMatch(/"blocked", "done", "stalled", "limited", "exited"/);
    expect(byKey['on[2].run']!.message).toMatch(/non-empty list/);
    expect(byKey['on[3].timeout']!.message).toMatch(/from "100ms" to "10m"/);
    expect(byKey['on[3].colour']!.message).toMatch(/unknown key/);
  });

  it('[on] with single brackets is named', () => {
    const { config, problems } = parseConfig(`[on]\nevent = "blocked"\nrun = ["x"]\n`);
    expect(config.on).toEqual([]);
    expect(problems[0]!.message).toMatch(/\[\[on\]\] tables \(double brackets\)/);
  });
});

// ---- the fakes ------------------------------------------------------------------------------

interface FakeChild {
  spec: RunSpec;
  on: ChildEvents;
  signals: string[];
}

function fakeSpawner(): { spawn: Spawner; children: FakeChild[] } {
  const children: FakeChild[] = [];
  return {
    children,
    spawn: (spec, on) => {
      const c: FakeChild = { spec, on, signals: [] };
      children.push(c);
      return { kill: (s) => void c.signals.push(s) };
    },
  };
}

function row(over: Partial<AgentRow> = {}): AgentRow {
  return { name: 'api', agent: 'claude', window: '@3', pane: '%4', cwd: '/src/api', id: 'a1', session: 'work', state: 'blocked', stateSince: 0, queue: 0, queueStalled: false, exitStatus: null, ...over } as AgentRow;
}

const rule = (event: OnRule['event'], over: Partial<OnRule> = {}): OnRule => ({ event, run: ['hook', event], timeoutMs: 10_000, agent: null, session: null, ...over });

describe('OnEvents', () => {
  let dir: string;
  let time: FakeTime;
  let logs: string[];
  let failures: OnFailure[];
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-on-'));
    time = new FakeTime(1_700_000_000_000);
    logs = [];
    failures = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function rig(rules: OnRule[], opts: { max?: number; queueMax?: number } = {}) {
    const f = fakeSpawner();
    const on = new OnEvents({
      clock: time,
      rules: () => rules,
      fired: new FiredStore(path.join(dir, 'fired.json')),
      log: (level, m) => logs.push(`${level} ${m}`),
      failed: (x) => failures.push(x),
      spawn: f.spawn,
      env: { PATH: '/usr/bin', NERDR_EVENT_KIND: 'stale' },
      ...opts,
    });
    let screen = ['', ''];
    const see = (s: Partial<OnSubject> = {}, r: Partial<AgentRow> = {}) => {
      const subject: OnSubject = { id: 'a1', window: '@3', agent: 'claude', session: 'work', state: 'blocked', stateSince: time.now(), stalledAt: null, ...s };
      on.observe(subject, (): OnDetail => ({ row: row({ state: subject.state as AgentRow['state'], stateSince: subject.stateSince, ...r }), screen: () => screen, promptId: 'p-123' }));
    };
    return { on, children: f.children, see, setScreen: (s: string[]) => (screen = s) };
  }

  it('runs once per state entry, however often the window changes in it', () => {
    const r = rig([rule('blocked')]);
    r.see({ state: 'working', stateSince: 1 });
    r.see({ stateSince: 2 });
    r.see({ stateSince: 2 });
    r.see({ stateSince: 2 }, { tokens: 5 } as unknown as Partial<AgentRow>);
    expect(r.children).toHaveLength(1);
    r.see({ state: 'working', stateSince: 3 });
    r.see({ stateSince: 4 });
    expect(r.children).toHaveLength(2);
    expect(JSON.parse(r.children[1]!.spec.stdin).key).toBe('@3|blocked|4');
  });

  it('runs only the rules of that event, agent and session', () => {
    const r = rig([rule('done'), rule('blocked', { agent: 'codex' }), rule('blocked', { session: 'other' }), rule('blocked', { agent: 'claude', session: 'work', run: ['mine'] })]);
    r.see({ stateSince: 1 });
    expect(r.children.map((c) => c.spec.argv)).toEqual([['mine']]);
  });

  it('no rule for it: nothing runs and nothing is written', () => {
    const r = rig([rule('done')]);
    r.see({ stateSince: 1 });
    expect(r.children).toHaveLength(0);
    expect(new FiredStore(path.join(dir, 'fired.json')).get('a1:state')).toBeUndefined();
  });

  it('the event on stdin and in NERDR_EVENT_*, with the screen\'s last lines shown safely', () => {
    const r = rig([rule('blocked')]);
    r.setScreen(['old', 'Allow \x1b]52;c;aGk=\x07 write?', ' 1. Yes', ' 2. No   ', '', '']);
    r.see({ stateSince: 42 });
    const c = r.children[0]!;
    const e = JSON.parse(c.spec.stdin);
    expect(e).toMatchObject({ kind: 'blocked', key: '@3|blocked|42', window: '@3', name: 'api', agent: 'claude', session: 'work', state: 'blocked', since: 42, id: 'a1', pane: '%4', cwd: '/src/api', promptId: 'p-123' });
    expect(e.lines).toEqual(['old', 'Allow ^[]52;c;aGk=^G write?', ' 1. Yes', ' 2. No']);
    expect(e.row.name).toBe('api');
    expect(c.spec.env).toMatchObject({ PATH: '/usr/bin', NERDR_EVENT_KIND: 'blocked', NERDR_EVENT_WINDOW: '@3', NERDR_EVENT_NAME: 'api', NERDR_EVENT_AGENT: 'claude', NERDR_EVENT_SESSION: 'work', NERDR_EVENT_STATE: 'blocked', NERDR_EVENT_SINCE: '42', NERDR_EVENT_ID: 'a1', NERDR_EVENT_PROMPT_ID: 'p-123' });
    expect(c.spec.env.NERDR_EVENT_LINES).toBe('old\nAllow ^[]52;c;aGk=^G write?\n 1. Yes\n 2. No');
    expect(Object.values(c.spec.env).join('')).not.toMatch(/\x1b|\x07/);
  });

  it('a name with control characters shows them in the variables, and JSON keeps the row exact', () => {
    const r = rig([rule('done')]);
    r.see({ state: 'done', stateSince: 1 }, { name: 'evil\x1b[2J' });
    const c = r.children[0]!;
    expect(c.spec.env.NERDR_EVENT_NAME).toBe('evil^[[2J');
    expect(JSON.parse(c.spec.stdin).row.name).toBe('evil\x1b[2J');
    expect(JSON.parse(c.spec.stdin).lines).toEqual([]);
  });

  it('a stalled queue is its own event, keyed by when it stalled', () => {
    const r = rig([rule('stalled')]);
    r.see({ state: 'idle', stateSince: 1, stalledAt: 50 }, { queue: 2, queueStalled: true });
    r.see({ state: 'working', stateSince: 2, stalledAt: 50 });
    expect(r.children).toHaveLength(1);
    expect(JSON.parse(r.children[0]!.spec.stdin)).toMatchObject({ kind: 'stalled', since: 50, stalledAt: 50, queue: 2, key: '@3|stalled|50' });
    r.see({ state: 'working', stateSince: 2, stalledAt: null });
    r.see({ state: 'idle', stateSince: 3, stalledAt: 90 });
    expect(r.children).toHaveLength(2);
  });

  it('limited runs once per limit, with the words and the reset on stdin and in NERDR_EVENT_*', () => {
    const r = rig([rule('limited')]);
    const limit = { words: "You've hit your session limit · resets 3pm (UTC)", resetAt: 1_700_000_600_000, resetText: '3pm (UTC)' };
    r.see({ state: 'limited', stateSince: 1 }, { limit });
    r.see({ state: 'limited', stateSince: 1 }, { limit });
    expect(r.children).toHaveLength(1);
    const c = r.children[0]!;
    expect(JSON.parse(c.spec.stdin)).toMatchObject({ kind: 'limited', state: 'limited', limit: { words: limit.words, resetAt: limit.resetAt }, row: { limit } });
    expect(c.spec.env).toMatchObject({ NERDR_EVENT_KIND: 'limited', NERDR_EVENT_LIMIT: limit.words, NERDR_EVENT_RESET_AT: '1700000600000' });
    // an unknown reset: no NERDR_EVENT_RESET_AT
    r.see({ state: 'idle', stateSince: 2 });
    r.see({ state: 'limited', stateSince: 3 }, { limit: { ...limit, resetAt: null } });
    expect(r.children).toHaveLength(2);
    expect(r.children[1]!.spec.env.NERDR_EVENT_RESET_AT).toBeUndefined();
    expect(JSON.parse(r.children[1]!.spec.stdin).limit).toEqual({ words: limit.words, resetAt: null });
  });

  it('a restarted supervisor does not run again for a window still in the state fired for', () => {
    const a = rig([rule('blocked'), rule('exited')]);
    a.see({ state: 'blocked', stateSince: 10 });
    expect(a.children).toHaveLength(1);
    // a new process: the same file, the window found unknown, then blocked with a new since
    const b = rig([rule('blocked'), rule('exited')]);
    b.see({ state: 'unknown', stateSince: 500 });
    b.see({ state: 'blocked', stateSince: 501 });
    expect(b.children).toHaveLength(0);
    expect(logs.some((l) => /still blocked since before this supervisor started/.test(l))).toBe(true);
    // and the next entry runs
    b.see({ state: 'working', stateSince: 600 });
    b.see({ state: 'blocked', stateSince: 700 });
    expect(b.children).toHaveLength(1);
    // another window, or another state, after a restart: runs
    const c = rig([rule('blocked'), rule('exited')]);
    c.see({ id: 'a2', window: '@9', state: 'blocked', stateSince: 800 });
    c.see({ state: 'exited', stateSince: 801 });
    expect(c.children.map((x) => JSON.parse(x.spec.stdin).kind)).toEqual(['blocked', 'exited']);
  });

  it('a stall from before a restart keeps its time, so its key alone tells it', () => {
    rig([rule('stalled')]).see({ state: 'idle', stalledAt: 50 });
    const b = rig([rule('stalled')]);
    b.see({ state: 'idle', stalledAt: 50 });
    expect(b.children).toHaveLength(0);
  });

  it('a window gone is forgotten on disk', () => {
    const a = rig([rule('blocked')]);
    a.see({ stateSince: 10 });
    a.on.forget('a1');
    expect(new FiredStore(path.join(dir, 'fired.json')).get('a1:state')).toBeUndefined();
  });

  it('ends a command at its timeout: SIGTERM, then SIGKILL; the failure is logged and kept', () => {
    const r = rig([rule('blocked', { timeoutMs: 1000 })]);
    r.see({ stateSince: 1 });
    const c = r.children[0]!;
    c.on.stderr(Buffer.from('working…\nstill \x1b[31mhere\n'));
    time.advance(999);
    expect(c.signals).toEqual([]);
    time.advance(1);
    expect(c.signals).toEqual(['SIGTERM']);
    time.advance(KILL_AFTER_MS);
    expect(c.signals).toEqual(['SIGTERM', 'SIGKILL']);
    c.on.exit(null, 'SIGKILL');
    expect(failures).toHaveLength(1);
    expect(failures[0]!.why).toBe('timed out after 1 s (killed with SIGKILL): still ^[[31mhere');
    expect(logs.some((l) => l.startsWith('warn on blocked api (@3): ["hook","blocked"] timed out after 1 s'))).toBe(true);
  });

  it('an exit within the time cancels the kill; a non-zero status and a spawn error are failures', () => {
    const r = rig([rule('blocked', { timeoutMs: 1000 }), rule('blocked', { run: ['nope'] })]);
    r.see({ stateSince: 1 });
    const [ok, bad] = r.children;
    ok!.on.exit(0, null);
    bad!.on.stderr(Buffer.from('bad thing\n'));
    bad!.on.exit(7, null);
    time.advance(5000);
    expect(ok!.signals).toEqual([]);
    expect(failures.map((f) => f.why)).toEqual(['exit status 7: bad thing']);
    r.see({ state: 'working', stateSince: 2 });
    r.see({ stateSince: 3 });
    r.children[2]!.on.error(Object.assign(new Error('spawn hook ENOENT'), { code: 'ENOENT' }));
    expect(failures.at(-1)!.why).toBe('could not start: ENOENT');
  });

  it('at most max run at once; the rest wait, and past the queue they are dropped and logged', () => {
    const r = rig([rule('blocked')], { max: 2, queueMax: 1 });
    for (let i = 0; i < 4; i++) r.see({ id: `w${i}`, window: `@${i}`, stateSince: 1 });
    expect(r.children).toHaveLength(2);
    expect(r.on.pool.queued).toBe(1);
    expect(failures.map((f) => [f.window, f.why])).toEqual([['@3', 'dropped: 2 commands running and 1 waiting']]);
    r.children[0]!.on.exit(0, null);
    expect(r.children).toHaveLength(3);
    expect(r.children[2]!.spec.env.NERDR_EVENT_WINDOW).toBe('@2');
  });
});

describe('[[on]] on disk and in doctor', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-on-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the last failures, bounded', () => {
    const file = onFiles(dir, 'k').failures;
    for (let i = 0; i < 30; i++) recordFailure(file, { at: i, event: 'done', window: '@1', name: 'n', run: ['x'], why: `w${i}` });
    const all = readFailures(file);
    expect(all).toHaveLength(20);
    expect(all.at(-1)!.why).toBe('w29');
  });

  it('doctor: rules and no failure is ok; a recent failure is a warning with the command and why', () => {
    const files = onFiles(dir, 'k');
    const rules = [rule('blocked')];
    expect(onEventsCheck(files.failures, rules, 'LOG', 1000)).toMatchObject({ ok: true, detail: '1 rule (blocked); no failure' });
    recordFailure(files.failures, { at: 500, event: 'blocked', window: '@1', name: 'api\x1b]0;x\x07', run: ['curl', 'x'], why: 'timed out after 1 s (killed with SIGTERM)' });
    const c = onEventsCheck(files.failures, rules, 'LOG', 2000);
    expect(c.ok).toBe(true);
    expect(c.warn).toBe(true);
    expect(c.detail).toContain('blocked api^[]0;x^G (@1): ["curl","x"] timed out after 1 s (killed with SIGTERM), 2 s ago');
    expect(c.fix).toMatch(/LOG/);
  });

  it('the rules are read again when config.toml changes', () => {
    const file = path.join(dir, 'config.toml');
    const logs: string[] = [];
    const rules = configRules(file, () => loadConfig(dir), (_l, m) => logs.push(m));
    expect(rules()).toEqual([]);
    writeFileSync(file, '[[on]]\nevent = "done"\nrun = ["a"]\n');
    expect(rules().map((r) => r.run)).toEqual([['a']]);
    writeFileSync(file, '[[on]]\nevent = "done"\nrun = "a b"\n[[on]]\nevent = "blocked"\nrun = ["bb"]\n');
    expect(rules().map((r) => r.run)).toEqual([['bb']]);
    expect(logs.join('\n')).toMatch(/on\[0\]\.run: must be a list/);
  });

  it('lastLines: the bottom rows that hold something', () => {
    expect(lastLines(['a', '', 'b', ' ', ''], 2)).toEqual(['', 'b']);
  });
});

/** Running: a zombie waiting for whoever adopted it counts as gone. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('RunPool with real processes', () => {
  const run = (script: string, timeoutMs: number, stdin = '') =>
    new Promise<RunOutcome>((resolve) => {
      const pool = new RunPool<null>({ spawn: spawnProcess, clock: systemClock, killAfterMs: 300, done: (_t, o) => resolve(o), dropped: () => undefined });
      pool.submit({ argv: [process.execPath, '-e', script], env: { ...process.env, NERDR_EVENT_KIND: 'blocked' }, stdin, timeoutMs }, null);
    });

  it('stdin and the variables reach it; its status and stderr\'s last line come back', async () => {
    const o = await run(`let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{console.error('got '+JSON.parse(s).kind+' '+process.env.NERDR_EVENT_KIND+'\\n\\x1b[2J');process.exit(3)})`, 5000, '{"kind":"blocked"}\n');
    expect(o).toMatchObject({ ok: false, code: 3, timedOut: false, error: null, stderrLine: '^[[2J' });
    expect(describeOutcome(o, 5000)).toBe('exit status 3: ^[[2J');
  });

  it('one that ignores SIGTERM is killed with SIGKILL, with what it started', async () => {
    const o = await run(`process.on('SIGTERM',()=>{});require('child_process').spawn(process.execPath,['-e','process.on("SIGTERM",()=>{});console.error(process.pid);setInterval(()=>{},1000)'],{stdio:'inherit'});setInterval(()=>{},1000)`, 1500);
    expect(o).toMatchObject({ ok: false, timedOut: true, signal: 'SIGKILL' });
    const helper = Number(o.stderrLine);
    expect(helper).toBeGreaterThan(0);
    const gone = Date.now() + 2000;
    while (Date.now() < gone && alive(helper)) await new Promise((r) => setTimeout(r, 20));
    expect(alive(helper)).toBe(false);
  });

  it('a program that does not exist', async () => {
    const o = await new Promise<RunOutcome>((resolve) => {
      new RunPool<null>({ spawn: spawnProcess, clock: systemClock, done: (_t, x) => resolve(x), dropped: () => undefined }).submit({ argv: ['/nonexistent/nerdr-on'], env: {}, stdin: '', timeoutMs: 1000 }, null);
    });
    expect(describeOutcome(o, 1000)).toBe('could not start: ENOENT');
  });
});
