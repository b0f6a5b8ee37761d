// The hook spool, live (issue "Hooks at the floor"): fake `claude` windows (helpers/fake-agent.js,
// a real captured idle screen) started with `nerdr new claude -d`, so each runs with the launch's
// real wiring; the hook command is read from the settings file nerdr handed that launch and run
// with `sh -c`, as Claude runs it, with the pane's own environment.
//
//  - events sent while no supervisor runs (stopped) wait in the spool and are applied, in order, by
//    the next supervisor;
//  - an event written before the window's agent restarted is discarded, with a log line;
//  - 1,000 events in one second across 10 windows: every window ends in the right state, and each
//    window's order was kept (each pair SubagentStart/SubagentStop of one id cancels out only in
//    that order, and the turn's Stop makes the window done only when it comes last).
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, paneEnv, pidAlive, startLiveEnv, tmuxAvailable, waitFor, type AgentRowLike, type LiveEnv } from './helpers/env.js';
import { SHARED_FIXTURES } from '../shared-fixtures.js';
import { startWiredClaude, type WiredClaude } from './helpers/wired-claude.js';
import { serverFiles } from '../../src/paths.js';
import { spoolCheck } from '../../src/cli/doctor-spool.js';
import { writeSpoolFile } from '../../src/supervisor/spool.js';

const FAKE = path.join(REPO_ROOT, 'test', 'live', 'helpers', 'fake-agent.js');
const IDLE = path.join(SHARED_FIXTURES, 'screens', 'claude', '01-startup-idle.ansi.txt');
const HOOKS = path.join(SHARED_FIXTURES, 'hooks', 'claude-hooks.jsonl');
const hasFixtures = (() => {
  try {
    readFileSync(HOOKS);
    readFileSync(IDLE);
    return true;
  } catch {
    return false;
  }
})();

type Ev = Record<string, unknown>;

/** Recorded Claude payloads by event name (main thread first), to build sequences from. */
function templates(): Record<string, Ev> {
  const out: Record<string, Ev> = {};
  for (const l of readFileSync(HOOKS, 'utf8').split('\n').filter(Boolean)) {
    const e = JSON.parse(l) as Ev;
    const name = e.hook_event_name;
    if (typeof name !== 'string') continue;
    if (name === 'PreToolUse' && e.tool_name === 'AskUserQuestion') continue;
    if (!out[name] || (out[name]!.agent_id && !e.agent_id)) out[name] = e;
  }
  return out;
}

type Win = WiredClaude;

/** Runs the wired hook command as Claude does: `sh -c <command>`, the payload on stdin. */
function runHook(w: Win, payload: string, base: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', w.command], { env: { PATH: base.PATH, HOME: base.HOME, ...w.env }, stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stdin.on('error', () => undefined);
    child.stdin.end(payload);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

describe.skipIf(!tmuxAvailable || !hasFixtures)('the hook spool, live', () => {
  let env: LiveEnv;
  let root = '';
  let spool = '';
  let log = '';
  const t = hasFixtures ? templates() : {};

  beforeAll(async () => {
    root = path.join(process.env.TMPDIR ?? '/tmp', `nerdr-spool-bin-${process.pid}-${Date.now()}`);
    mkdirSync(path.join(root, 'bin'), { recursive: true });
    symlinkSync(FAKE, path.join(root, 'bin', 'claude'));
    env = await startLiveEnv({ env: { PATH: `${path.join(root, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`, FAKE_AGENT_SCREEN: IDLE } });
    const files = serverFiles(env.socketPath, env.env);
    spool = files.spool;
    log = files.log;
  }, 60_000);

  afterAll(async () => {
    await env?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const startClaude = (name: string): Promise<Win> => startWiredClaude(env, name);

  const row = async (win: string): Promise<AgentRowLike> => {
    const r = (await env.lsJson()).find((a) => a.window === win);
    if (!r) throw new Error(`${win} is not in nerdr ls`);
    return r;
  };
  const waiting = (): string[] => {
    try {
      return readdirSync(spool).filter((n) => n.endsWith('.hook'));
    } catch {
      return [];
    }
  };

  /** No supervisor runs until a command needs one: stopped on purpose (a kill -9 is revived by tmux at once). */
  async function stopSupervisor(): Promise<void> {
    const pid = await env.supervisorPid();
    expect(pid).not.toBeNull();
    expect((await env.nerdr('supervisor', 'stop')).code).toBe(0);
    await waitFor(() => !pidAlive(pid!), { what: 'the stopped supervisor to be gone' });
  }

  let first: Win;

  const sids = { a: '0badc0de-0001-4222-8333-444455556666', b: '0badc0de-0002-4222-8333-444455556666', c: '0badc0de-0003-4222-8333-444455556666' };
  /** A whole turn of one conversation, as Claude sends it: the conversation starts, a prompt, a tool, the turn ends. */
  const turn = (sid: string): string[] => ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'].map((n) => JSON.stringify({ ...t[n], session_id: sid }));

  it('Claude\'s launch runs the shell hook, and its events reach the light through the spool', async () => {
    first = await startClaude('spool-1');
    expect(first.command).toMatch(/^\/bin\/sh .*hooks\/nerdr-hook'? claude$/);
    await waitFor(async () => (await row(first.win)).state === 'idle', { timeoutMs: 20_000, what: 'the fake claude idle' });
    const [start, prompt, , , stop] = turn(sids.a);
    expect(await runHook(first, start!, env.env)).toEqual({ code: 0, stdout: '' });
    expect(await runHook(first, prompt!, env.env)).toEqual({ code: 0, stdout: '' });
    await waitFor(async () => (await row(first.win)).state === 'working', { what: 'working after UserPromptSubmit' });
    await runHook(first, stop!, env.env);
    await waitFor(async () => {
      const r = await row(first.win);
      return r.state === 'done' && r.conversationId === sids.a;
    }, { what: 'done, in conversation a' });
    // a file goes once its event's effect is kept in tmux (the window's facts), a moment later
    await waitFor(() => waiting().length === 0, { what: 'the spool emptied' });
  });

  it('events sent while no supervisor runs are applied, in order, when it is back', async () => {
    await stopSupervisor();
    // a new conversation's turn: its SessionStart must come first (else its other events belong to
    // "another conversation" and are ignored) and its Stop last (else the window is not done)
    for (const p of turn(sids.b)) expect(await runHook(first, p, env.env)).toEqual({ code: 0, stdout: '' });
    expect(waiting()).toHaveLength(5);
    // what `nerdr doctor` shows of it (its check, src/cli/doctor-spool.ts)
    const check = await spoolCheck(spool, log, false);
    expect(check.ok).toBe(true);
    expect(check.detail).toMatch(/5 event\(s\) waiting, the oldest written \d+ s ago; none moved aside/);
    // any command starts the supervisor again
    await waitFor(async () => {
      const r = await row(first.win);
      return r.state === 'done' && r.conversationId === sids.b;
    }, { timeoutMs: 20_000, what: 'the new supervisor to apply the turn: done, in conversation b' });
    await waitFor(() => waiting().length === 0, { what: 'the spool emptied' });
    expect(readFileSync(log, 'utf8')).not.toMatch(/spool: .*(discarded|moved aside|refused)/);
  });

  it('an event written before the window\'s agent restarted is discarded, with a line in the log', async () => {
    await stopSupervisor();
    expect((await runHook(first, turn(sids.c)[0]!, env.env)).code).toBe(0);
    expect(waiting()).toHaveLength(1);
    // the agent restarts while no supervisor watches (the window keeps its secret). Both the
    // event's time (/proc/uptime) and a process start (clock ticks) have 10 ms steps: the restart
    // comes two steps later, so it is not in the event's own step (which would not be "before")
    const uptime = (): number => Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    const written = uptime();
    await waitFor(() => uptime() >= written + 0.02, { what: 'the clock two hundredths on', timeoutMs: 5000, intervalMs: 5 });
    await env.tmuxOk('respawn-pane', '-k', '-t', first.win);
    await waitFor(async () => {
      const r = await row(first.win);
      if (waiting().length > 0) throw new Error(`waiting: ${waiting().join(' ')}; ${r.state}; log: ${readFileSync(log, 'utf8').split('\n').slice(-6).join(' | ')}`);
      return r;
    }, { timeoutMs: 20_000, what: 'the stale event handled' });
    await waitFor(() => /spool: \S+ \(claude event\) for spool-1 \(@\d+\) was written before its agent last started: discarded/.test(readFileSync(log, 'utf8')), { what: 'the discard in the log' });
    expect((await row(first.win)).conversationId).not.toBe(sids.c);
  });

  it('1,000 events in one second across 10 windows: every window ends right, each in its own order', async () => {
    const wins: Win[] = [];
    for (let i = 0; i < 10; i++) wins.push(await startClaude(`burst-${i}`));
    await waitFor(async () => {
      const rows = await env.lsJson();
      return wins.every((w) => rows.find((r) => r.window === w.win)?.state === 'idle');
    }, { timeoutMs: 30_000, what: 'ten idle windows' });
    // per window: its conversation starts, a prompt, 48 subagents that start and stop (each pair
    // cancels out only in this order), a tool, then the turn's Stop (done only if it is last and no
    // subagent is left; the conversation's events count only after its SessionStart)
    const sid = (i: number) => `0badc0de-${String(100 + i).padStart(4, '0')}-4222-8333-444455556666`;
    const sequences = wins.map((_w, i) => {
      const evs: Ev[] = [{ ...t.SessionStart, session_id: sid(i) }, { ...t.UserPromptSubmit, session_id: sid(i) }];
      for (let k = 0; k < 48; k++) {
        const id = `sub-${i}-${k}`;
        evs.push({ ...t.SubagentStart, session_id: sid(i), agent_id: id }, { ...t.SubagentStop, session_id: sid(i), agent_id: id });
      }
      evs.push({ ...t.PreToolUse, session_id: sid(i) }, { ...t.Stop, session_id: sid(i) });
      return evs;
    });
    expect(sequences.flat()).toHaveLength(1000);
    // An in-process writer, as the opencode plugin is: the shell hook costs a few ms of CPU per
    // event, so 1,000 sh processes cannot start in one second on a 2-core machine; the reader is
    // what is measured here. Same format, same temp-and-rename; paced over one second.
    let last = 0n;
    let n = 0;
    const write = (w: Win, ev: Ev): void => {
      let time = BigInt(Date.now()) * 1_000_000n;
      if (time <= last) time = last + 1n;
      last = time;
      writeSpoolFile(spool, { secret: w.env.NERDR_TAB!, agent: 'claude', timeNs: time, seq: ++n, payload: JSON.stringify(ev) });
    };
    const t0 = Date.now();
    for (let tick = 0; tick < 100; tick++) {
      for (let i = 0; i < 10; i++) write(wins[i]!, sequences[i]![tick]!);
      // pacing: ten events (one per window) every 10 ms
      const next = t0 + (tick + 1) * 10;
      if (Date.now() < next) await new Promise((r) => setTimeout(r, next - Date.now()));
    }
    const wroteMs = Date.now() - t0;
    const rows = await waitFor(async () => {
      const all = await env.lsJson();
      const mine = wins.map((w) => all.find((r) => r.window === w.win)!);
      if (waiting().length === 0 && mine.every((r) => r.state === 'done' && r.subagents === 0)) return mine;
      const behind = mine.filter((r) => r.state !== 'done').map((r) => r.name);
      const about = readFileSync(log, 'utf8').split('\n').filter((l) => /spool:/.test(l) && behind.some((b) => l.includes(b)));
      throw new Error(`${waiting().length} waiting; ${mine.map((r) => `${r.name} ${r.state} ${r.subagents} ${r.conversationId?.slice(-8)}`).join(', ')}; log: ${[...about.slice(-5), ...readFileSync(log, 'utf8').split('\n').slice(-5)].join(' | ')}`);
    }, { timeoutMs: 30_000, what: 'all ten windows done with no subagent left' });
    const doneMs = Date.now() - t0;
    process.stderr.write(`[spool] 1,000 events written in ${wroteMs} ms; all ten windows right ${doneMs} ms after the first\n`);
    expect(rows.map((r, i) => r.conversationId === sid(i))).toEqual(Array(10).fill(true));
    expect(readFileSync(log, 'utf8')).not.toMatch(/spool: .*(moved aside|refused)/);
  }, 120_000);
});
