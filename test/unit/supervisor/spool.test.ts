// The hook spool: the pure rules (file format, order, the restart and temp-file clocks), the shell
// hook writing files the reader accepts, and the reader applying, refusing and moving files aside
// in a temp folder (drain() awaited directly: no timing).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ASIDE_DIR, asideName, beforeStart, hookParams, ordered, parseSpoolFile, tempNameOf, SpoolReader, spoolDirForSocket, spoolStatus, staleTemp, startFromStat, writeSpoolFile,
  TEMP_MAX_AGE_MS, type SpoolEntry,
} from '../../../src/supervisor/spool.js';
import { serverFiles } from '../../../src/paths.js';
import { spoolCheck } from '../../../src/cli/doctor-spool.js';
import type { HookReport } from '../../../src/supervisor/socket/index.js';
import { FakeTime } from './harness.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const SCRIPT = path.join(ROOT, 'hooks', 'nerdr-hook');

const file = (fields: Record<string, string>, payload = '{"hook_event_name":"Stop"}', magic = 'nerdr-spool 1'): Buffer =>
  Buffer.from(`${magic}\n${Object.entries(fields).map(([k, v]) => `${k} ${v}`).join('\n')}\n\n${payload}`);
const ok = (name: string, buf: Buffer, btimeSec?: number): SpoolEntry => {
  const p = btimeSec === undefined ? parseSpoolFile(name, buf) : parseSpoolFile(name, buf, btimeSec);
  if (!('entry' in p)) throw new Error(p.malformed);
  return p.entry;
};

describe('spool files (pure)', () => {
  it('reads the header and keeps the payload bytes as written', () => {
    const e = ok('1700000000123456789.42.hook', file({ secret: 'S', agent: 'claude', event: '', time: '1700000000123456789' }, '{"a":1}\n'));
    expect(e).toMatchObject({ secret: 'S', agent: 'claude', event: '', time: 1700000000123456789n });
    expect(e.payload.toString()).toBe('{"a":1}\n');
    expect(hookParams(e)).toEqual({ secret: 'S', agent: 'claude', event: { a: 1 } });
  });

  it('judges the payload as `nerdr hook` does: over the cap, not JSON, empty → dropped; the event name is the hint', () => {
    const big = ok('1.1.hook', file({ secret: 'S', agent: 'copilot', event: 'agentStop', time: '1' }, `{"x":"${'y'.repeat(1024 * 1024)}"}`));
    expect(hookParams(big)).toEqual({ secret: 'S', agent: 'copilot', event: null, dropped: 'too_large', hint: 'agentStop' });
    expect(hookParams(ok('1.1.hook', file({ secret: 'S', agent: 'a', time: '1' }, 'not json')))).toMatchObject({ event: null, dropped: 'malformed' });
    expect(hookParams(ok('1.1.hook', file({ secret: 'S', agent: 'a', time: '1' }, '')))).toMatchObject({ event: null, dropped: 'empty' });
    expect(hookParams(ok('1.1.hook', file({ secret: 'S', agent: 'a', time: '1' }, '[1]')))).toMatchObject({ event: null, dropped: 'malformed' });
  });

  it('refuses what is not a spool file', () => {
    const bad = (name: string, buf: Buffer) => 'malformed' in parseSpoolFile(name, buf);
    expect(bad('x.hook', file({ secret: 'S', agent: 'a', time: '1' }))).toBe(true);
    expect(bad('1.1.hook', file({ secret: 'S', agent: 'a', time: '1' }, '{}', 'nerdr-spool 2'))).toBe(true);
    expect(bad('1.1.hook', file({ secret: 'S', agent: 'a' }))).toBe(true);
    expect(bad('1.1.hook', file({ agent: 'a', time: '1' }))).toBe(true);
    expect(bad('1.1.hook', file({ secret: 'S', agent: 'a', time: 'soon' }))).toBe(true);
    expect(bad('1.1.hook', Buffer.from('nerdr-spool 1\nsecret S\nagent a\ntime 1\n'))).toBe(true);
    expect(bad('1.1.hook', Buffer.from(`nerdr-spool 1\nsecret S\nsecret T\nagent a\ntime 1\n\n{}`))).toBe(true);
  });

  it('orders by timestamp, then name (the writer\'s zero-padded sequence number)', () => {
    const w = (name: string, time: bigint) => ({ ...ok(name, file({ secret: 'S', agent: 'a', time: String(time) })), time });
    const items = [w('3.0000000010-1.hook', 3n), w('1.0000000001-9.hook', 1n), w('3.0000000009-5.hook', 3n), w('2.0000000002-5.hook', 2n)];
    expect(ordered(items).map((i) => i.name)).toEqual(['1.0000000001-9.hook', '2.0000000002-5.hook', '3.0000000009-5.hook', '3.0000000010-1.hook']);
  });

  it('the uptime clock (the shell hook on Linux) becomes wall-clock time by the boot time', () => {
    const e = ok('12345.0000000001-3.hook', file({ secret: 'S', agent: 'a', uptime: '123.45' }), 1_700_000_000);
    expect(e.time).toBe(1_700_000_000n * 1_000_000_000n + 123_450_000_000n);
    expect('malformed' in parseSpoolFile('1.1.hook', file({ secret: 'S', agent: 'a', uptime: '123.45' }), null)).toBe(true);
    expect('malformed' in parseSpoolFile('1.1.hook', file({ secret: 'S', agent: 'a', uptime: '123.45', time: '5' }), 1)).toBe(true);
    expect('malformed' in parseSpoolFile('1.1.hook', file({ secret: 'S', agent: 'a', uptime: '12345' }), 1)).toBe(true);
    expect(tempNameOf('12345.0000000001-3.hook')).toBe('.12345.0000000001-3');
  });

  it('an event written before the agent last started is an earlier agent\'s; unknown start discards nothing', () => {
    const e = (ms: number) => ({ ...ok('1.1.hook', file({ secret: 'S', agent: 'a', time: '1' })), time: BigInt(ms) * 1_000_000n + 5n });
    expect(beforeStart(e(999), 1000)).toBe(true);
    expect(beforeStart(e(1000), 1000)).toBe(false);
    expect(beforeStart(e(2000), 1000)).toBe(false);
    expect(beforeStart(e(1), null)).toBe(false);
  });

  it('temp files of killed hooks expire by the injected clock; aside names sort by when', () => {
    const now = 1_000_000;
    expect(staleTemp('.1.2', now - TEMP_MAX_AGE_MS - 1, now)).toBe(true);
    expect(staleTemp('.1.2', now - 10, now)).toBe(false);
    expect(staleTemp('1.2.hook', 0, now)).toBe(false);
    expect(asideName('1.2.hook', 'malformed', 5)).toBe('0000000000005-malformed-1.2.hook');
    expect(asideName('.x', 'foreign', 12) < asideName('a', 'foreign', 100)).toBe(true);
  });

  it('a process start from /proc/<pid>/stat and btime, never later than the real one', () => {
    // pid (comm with ) spaces) state ppid … field 22 = starttime in ticks
    const fields = ['S', ...Array.from({ length: 18 }, (_, i) => String(i + 1)), '12345', '0'];
    const stat = `77 (we) ird (x)) ${fields.join(' ')}`;
    expect(startFromStat(stat, 1_700_000_000)).toBe(1_700_000_000_000 + 123_450);
    expect(startFromStat('garbage', 1)).toBeNull();
  });

  it('the folder follows the socket: <state>/nerdr-<key>.sock → <state>/spool/<key>, as the shell hook derives it', () => {
    const f = serverFiles('/tmp/tmux-1/my server', { NERDR_STATE_DIR: '/s t/ate' });
    expect(spoolDirForSocket(f.socket)).toBe(f.spool);
    const r = spawnSync('/bin/sh', ['-c', 'k=${NERDR_SOCKET##*/}; k=${k#nerdr-}; k=${k%.sock}; printf %s "${NERDR_SOCKET%/*}/spool/$k"'], { env: { NERDR_SOCKET: f.socket }, encoding: 'utf8' });
    expect(r.stdout).toBe(f.spool);
  });
});

describe('the shell hook and the reader', () => {
  let root: string;
  let spool: string;
  let socket: string;
  let logs: string[];
  let applied: HookReport<string>[];
  let windows: Record<string, string>;
  let starts: Record<string, number | null>;
  let time: FakeTime;

  const reader = () =>
    new SpoolReader<string>({
      dir: spool,
      authenticate: (s) => windows[s] ?? null,
      apply: (h) => void applied.push(h),
      startedAt: (w) => starts[w] ?? null,
      describe: (w) => w,
      log: (_l, m) => logs.push(m),
      clock: time,
    });

  /** Runs the hook as an agent does: the window's variables, the payload on stdin. */
  const hook = (args: string[], input: string | Buffer, env: Record<string, string> = {}) =>
    spawnSync('/bin/sh', [SCRIPT, ...args], { input, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NERDR_SOCKET: socket, NERDR_TAB: 'S1', ...env } });

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'nerdr-spool-'));
    socket = path.join(root, 'state', 'nerdr-srv-1.sock');
    spool = path.join(root, 'state', 'spool', 'srv-1');
    mkdirSync(spool, { recursive: true, mode: 0o700 });
    logs = [];
    applied = [];
    windows = { S1: '@1', S2: '@2' };
    starts = {};
    time = new FakeTime(Date.now());
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('writes one private file per event, prints nothing, exits 0; the reader applies them in order and deletes them', async () => {
    const events = ['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'];
    for (const ev of events) {
      const r = hook(['claude'], JSON.stringify({ hook_event_name: ev }));
      expect(r.status).toBe(0);
      expect(r.stdout.toString()).toBe('');
      expect(r.stderr.toString()).toBe('');
    }
    const names = readdirSync(spool).filter((n) => !n.startsWith('.'));
    expect(names).toHaveLength(4);
    for (const n of readdirSync(spool)) expect(statSync(path.join(spool, n)).mode & 0o777).toBe(0o600);
    await reader().drain();
    expect(applied.map((h) => [h.window, h.agent, (h.event as { hook_event_name: string }).hook_event_name])).toEqual(events.map((e) => ['@1', 'claude', e]));
    expect(readdirSync(spool)).toEqual(['.seq-x']);
  });

  it('an applied event stays on disk until its effect is kept, and a kept one is never applied again', async () => {
    for (const ev of ['SubagentStart', 'SubagentStart', 'SubagentStop']) expect(hook(['claude'], JSON.stringify({ hook_event_name: ev })).status).toBe(0);
    // the supervisor's side (Supervisor.applySpooled): names applied per window, kept once tmux has them
    const keptNames = new Set<string>();
    let keep: (ok: boolean) => void = () => undefined;
    let keeping: Promise<boolean> = new Promise((r) => (keep = r));
    const sink = (h: HookReport<string>, name: string): Promise<boolean> => {
      if (!keptNames.has(name)) {
        keptNames.add(name);
        applied.push(h);
      }
      return keeping;
    };
    const deleted: string[] = [];
    const r = new SpoolReader<string>({
      dir: spool,
      authenticate: (s) => windows[s] ?? null,
      apply: sink,
      deleted: (_w, names) => deleted.push(...names),
      startedAt: () => null,
      describe: (w) => w,
      log: (_l, m) => logs.push(m),
      clock: time,
    });
    const pass = r.drain();
    // applied in memory, not yet kept: every file is still there
    await vi.waitFor(() => expect(applied).toHaveLength(3), { timeout: 5000 });
    expect(readdirSync(spool).filter((n) => n.endsWith('.hook'))).toHaveLength(3);
    keep(true);
    await pass;
    expect(readdirSync(spool).filter((n) => n.endsWith('.hook'))).toHaveLength(0);
    expect(deleted).toHaveLength(3);

    // a supervisor that died after the effect was kept but before the delete: the next one
    // (its facts name the events) applies none of them again, and deletes them
    for (const ev of ['SubagentStart', 'SubagentStart']) expect(hook(['claude'], JSON.stringify({ hook_event_name: ev })).status).toBe(0);
    for (const n of readdirSync(spool).filter((x) => x.endsWith('.hook'))) keptNames.add(n);
    keeping = Promise.resolve(true);
    await r.drain();
    expect(applied).toHaveLength(3);
    expect(readdirSync(spool).filter((n) => n.endsWith('.hook'))).toHaveLength(0);

    // effect never kept (tmux gone): the file stays for the next supervisor
    expect(hook(['claude'], JSON.stringify({ hook_event_name: 'Stop' })).status).toBe(0);
    keeping = Promise.resolve(false);
    await r.drain();
    expect(applied).toHaveLength(4);
    expect(readdirSync(spool).filter((n) => n.endsWith('.hook'))).toHaveLength(1);
  });

  it('a herdr report kept while no supervisor answered is checked as the socket checks it, then applied', async () => {
    const reports: { window: string; state?: string; source: string; seq?: bigint }[] = [];
    const r = new SpoolReader<string>({
      dir: spool,
      authenticate: (s) => windows[s] ?? null,
      apply: () => undefined,
      applyReport: (rep) => void reports.push(rep as never),
      startedAt: () => null,
      describe: (w) => w,
      log: (_l, m) => logs.push(m),
      clock: time,
    });
    const line = (params: Record<string, unknown>) => `{"method":"pane.report_agent","params":${JSON.stringify(params).replace('"SEQ"', '18446744073709551615')}}`;
    writeSpoolFile(spool, { secret: 'S2', agent: '-', method: 'pane.report_agent', timeNs: 1n, seq: 1, payload: line({ pane_id: 'S2', source: 'me', agent: 'pi', state: 'idle', seq: 'SEQ' }) });
    writeSpoolFile(spool, { secret: 'S1', agent: '-', method: 'pane.report_agent', timeNs: 2n, seq: 2, payload: line({ pane_id: 'S1', source: 'me', agent: 'pi', state: 'sleepy' }) });
    writeSpoolFile(spool, { secret: 'nope', agent: '-', method: 'pane.report_agent', timeNs: 3n, seq: 3, payload: line({ pane_id: 'nope', source: 'me', agent: 'pi', state: 'idle' }) });
    writeSpoolFile(spool, { secret: 'S1', agent: '-', method: 'nerdr.stop', timeNs: 4n, seq: 4, payload: '{}' });
    await r.drain();
    expect(reports).toEqual([expect.objectContaining({ window: '@2', source: 'me', state: 'idle', seq: 18446744073709551615n })]);
    expect(logs.join("\n")).toMatch(/refused: invalid request: unknown variant `sleepy`/);
    expect(logs.join('\n')).toMatch(/moved aside \(malformed: not a report method: nerdr.stop\)/);
    expect(readdirSync(spool).filter((n) => n.endsWith('.hook'))).toEqual([]);
  });

  it('passes the event name and an argument payload (Codex notify); agy gets its `{}`', async () => {
    expect(hook(['copilot', 'agentStop'], '{"sessionId":"x"}').status).toBe(0);
    expect(hook(['codex', 'notify', '{"type":"agent-turn-complete"}'], '').status).toBe(0);
    const agy = hook(['agy', 'Stop'], '{}');
    expect(agy.stdout.toString()).toBe('{}\n');
    await reader().drain();
    expect(applied.map((h) => [h.agent, h.hint, h.event])).toEqual([
      ['copilot', 'agentStop', { sessionId: 'x' }],
      ['codex', 'notify', { type: 'agent-turn-complete' }],
      ['agy', 'Stop', {}],
    ]);
  });

  it('a payload over 1 MiB is recorded as dropped, not applied as an event', async () => {
    const r = hook(['claude'], Buffer.alloc(3 * 1024 * 1024, 0x20));
    expect(r.status).toBe(0);
    await reader().drain();
    expect(applied).toEqual([{ window: '@1', agent: 'claude', event: null, dropped: 'too_large' }]);
  });

  it('outside a nerdr window, or with no spool folder, it exits 0 at once and writes nothing', () => {
    expect(hook(['claude'], '{}', { NERDR_TAB: '', HERDR_PANE_ID: '' }).status).toBe(0);
    expect(hook(['claude'], '{}', { NERDR_SOCKET: '' }).status).toBe(0);
    expect(readdirSync(spool)).toEqual([]);
    rmSync(spool, { recursive: true });
    const r = hook(['claude'], '{}');
    expect(r.status).toBe(0);
    expect(r.stderr.toString()).toBe('');
    expect(existsSync(spool)).toBe(false);
    // a folder it cannot write into: still 0, still silent
    mkdirSync(spool, { mode: 0o500 });
    const ro = hook(['claude'], '{}');
    expect(ro.status).toBe(0);
    expect(ro.stderr.toString()).toBe('');
  });

  it('authenticates like the socket: an unknown secret is refused with a log line and removed', async () => {
    hook(['claude'], '{"hook_event_name":"Stop"}', { NERDR_TAB: 'nobody' });
    hook(['claude'], '{"hook_event_name":"Stop"}', { NERDR_TAB: 'S2' });
    await reader().drain();
    expect(applied.map((h) => h.window)).toEqual(['@2']);
    expect(logs.join('\n')).toMatch(/1 event\(s\) with a secret that names no window refused/);
    expect(readdirSync(spool)).toEqual(['.seq-x']);
  });

  it('an event written before the window\'s agent last started is discarded with a log line', async () => {
    hook(['claude'], '{"hook_event_name":"Stop"}');
    starts['@1'] = Date.now() + 60_000;
    starts['@2'] = 0;
    hook(['claude'], '{"hook_event_name":"Stop"}', { NERDR_TAB: 'S2' });
    await reader().drain();
    expect(applied.map((h) => h.window)).toEqual(['@2']);
    expect(logs.join('\n')).toMatch(/for @1 was written before its agent last started: discarded/);
    expect(readdirSync(spool)).toEqual(['.seq-x']);
  });

  it('malformed and foreign files are moved aside (doctor shows them), other owners\' left alone, old temp files cleaned', async () => {
    writeFileSync(path.join(spool, '5.1.hook'), 'hello');
    writeFileSync(path.join(spool, 'notes.txt'), 'mine');
    symlinkSync('/etc/passwd', path.join(spool, '6.1.hook'));
    mkdirSync(path.join(spool, '7.1.hook'));
    writeFileSync(path.join(spool, '.123.9'), 'half');
    writeFileSync(path.join(spool, '.124.9'), 'half, being written');
    writeFileSync(path.join(spool, '.seq-3'), '7\n');
    const old = (time.t - TEMP_MAX_AGE_MS - 5000) / 1000;
    utimesSync(path.join(spool, '.123.9'), old, old);
    utimesSync(path.join(spool, '.seq-3'), old, old);
    hook(['claude'], '{"hook_event_name":"Stop"}');
    const r = reader();
    await r.drain();
    expect(applied).toHaveLength(1);
    const aside = readdirSync(path.join(spool, ASIDE_DIR)).sort();
    expect(aside.map((n) => n.replace(/^\d+-/, ''))).toEqual(['foreign-6.1.hook', 'foreign-7.1.hook', 'foreign-notes.txt', 'malformed-5.1.hook']);
    // the event's own temporary (hard-linked) name went with it; the writer's counter stays
    expect(readdirSync(spool).sort()).toEqual(['.124.9', '.seq-x', ASIDE_DIR]);
    expect(readFileSync('/etc/passwd', 'utf8').length).toBeGreaterThan(0); // the link moved, not its target
    const st = await spoolStatus(spool);
    expect(st).toMatchObject({ exists: true, waiting: 0, aside: 4 });
    expect(st.oldestAside).toBe(aside[0]);
    await r.close();
  });

  it('doctor\'s view: waiting files and the oldest', async () => {
    hook(['claude'], '{}');
    hook(['claude'], '{}');
    const st = await spoolStatus(spool);
    expect(st.waiting).toBe(2);
    // one pane's events: their sequence numbers rise
    const names = readdirSync(spool).filter((n) => n.endsWith('.hook')).sort();
    expect(names.map((n) => n.split('.')[1]!.split('-')[0])).toEqual(['0000000001', '0000000002']);
    expect(st.oldestWaitingMs).toBeGreaterThan(0);
    expect((await spoolStatus(path.join(root, 'none'))).exists).toBe(false);
    // doctor: waiting is normal with no supervisor, and a failure with one that has not read them in 10 s
    const oldest = st.oldestWaitingMs!;
    expect(await spoolCheck(spool, 'the.log', false, oldest + 60_000)).toMatchObject({ ok: true, detail: expect.stringContaining('2 event(s) waiting, the oldest written 60 s ago; none moved aside') });
    expect(await spoolCheck(spool, 'the.log', true, oldest + 5_000)).toMatchObject({ ok: true });
    expect(await spoolCheck(spool, 'the.log', true, oldest + 60_000)).toMatchObject({ ok: false, fix: expect.stringContaining('the.log') });
    expect(await spoolCheck(path.join(root, 'none'), 'the.log', true)).toMatchObject({ ok: true, detail: expect.stringContaining('made when the supervisor starts') });
  });

  it('start() makes the folder private and applies what was left', async () => {
    hook(['claude'], '{"hook_event_name":"Stop"}');
    chmodSync(spool, 0o755);
    const r = reader();
    await r.start();
    expect(statSync(spool).mode & 0o777).toBe(0o700);
    expect(applied).toHaveLength(1);
    await r.close();
    rmSync(spool, { recursive: true });
    const again = reader();
    await again.start();
    expect(statSync(spool).isDirectory()).toBe(true);
    await again.close();
  });

  it('a folder removed while watched is made again a second later (on the injected clock) and read again', async () => {
    const r = reader();
    await r.start();
    rmSync(spool, { recursive: true });
    // the watch reports the removal; the pass that follows finds no folder and schedules the rewatch
    const until = Date.now() + 5000;
    while (!logs.some((l) => /watching again in 1 s/.test(l)) && Date.now() < until) await new Promise((res) => setTimeout(res, 10));
    expect(logs.some((l) => /watching again in 1 s/.test(l))).toBe(true);
    expect(existsSync(spool)).toBe(false);
    time.advance(999);
    expect(existsSync(spool)).toBe(false);
    time.advance(1);
    const made = Date.now() + 5000;
    while (!existsSync(spool) && Date.now() < made) await new Promise((res) => setTimeout(res, 10));
    expect(statSync(spool).mode & 0o777).toBe(0o700);
    hook(['claude'], '{"hook_event_name":"Stop"}');
    const read = Date.now() + 5000;
    while (applied.length === 0 && Date.now() < read) await new Promise((res) => setTimeout(res, 10));
    expect(applied).toHaveLength(1);
    await r.close();
  });

  it('uses no bash-isms: the script passes `sh -n` and runs under dash', () => {
    expect(spawnSync('/bin/sh', ['-n', SCRIPT]).status).toBe(0);
    const text = readFileSync(SCRIPT, 'utf8');
    expect(text).not.toMatch(/\[\[|\$\{[^}]*\/\/|\bfunction\b|<<<|\$'|\blocal\b|\bsource\b|EPOCHREALTIME/);
  });
});
