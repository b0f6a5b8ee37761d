// What herdr's own integration scripts send, and what nerdr must make of it. For each of
// herdr's 18 integrations (shell + python hooks, JS plugins, TS extensions, the hermes plugin),
// the requests below are written from what the script sends (integration-protocol §3; herdr's
// src/integration/assets), not copied from it. They go through the supervisor's real socket
// (serveSocket: secret check, seq rules, Supervisor.onReport, the arbiter) or, for the hooks that
// run `$HERDR_BIN_PATH pane …`, through nerdr's real CLI; the outcome is read back with nerdr.ls,
// as `nerdr ls` does. No tmux: the supervisor finds the window on a fake control channel (../supervisor/harness.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/main.js';
import type { ManifestRegistry } from '../../../src/detect/index.js';
import type { WatchedAgent } from '../../../src/supervisor/agent.js';
import { systemClock } from '../../../src/supervisor/clock.js';
import { startRig, type Rig } from '../supervisor/harness.js';
import type { AgentRow } from '../../../src/protocol/index.js';
import { hashSecret } from '../../../src/supervisor/create.js';
import { serveSocket } from '../../../src/supervisor/main.js';
import { Supervisor } from '../../../src/supervisor/supervisor.js';
import { stringifyExact } from '../../../src/supervisor/socket/exact-json.js';
import type { SocketServer } from '../../../src/supervisor/socket/index.js';
import { call } from './helpers.js';

const SECRET = 'pane-secret-for-herdr-scripts-01';
const PKG_VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

interface Win {
  rig: Rig;
  sup: Supervisor;
  a: WatchedAgent;
  path: string;
  server: SocketServer;
  dir: string;
}

let win: Win | null = null;
const savedEnv = { ...process.env };

afterEach(async () => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
  process.env = { ...savedEnv };
  if (win) {
    await win.rig.done();
    await win.server.close();
    await rm(win.dir, { recursive: true, force: true });
    win = null;
  }
});

/** No rules for any agent: the screen leaves the state to the reports. */
const NO_RULES = { get: () => undefined } as unknown as ManifestRegistry;

/** A watched window running `agent`, its screen an idle prompt, served on a real socket. */
async function windowFor(agent: string, secret = SECRET, known: Promise<unknown> = Promise.resolve()): Promise<Win> {
  const dir = await mkdtemp(join(tmpdir(), 'nerdr-herdr-scripts-'));
  const rig = await startRig(
    (t) => void t.addPane({ agent, name: agent, argv: [agent], cwd: dir, secretHash: hashSecret(secret), session: 'work', index: 1, pid: 0 }),
    { clock: systemClock, manifests: NO_RULES },
  );
  const sup = rig.sup;
  const a = sup.agents.get('%1')!;
  idleScreen(a);
  const path = join(dir, 'nerdr.sock');
  const server = await serveSocket(sup, path, () => undefined, known);
  win = { rig, sup, a, path, server, dir };
  return win;
}

function idleScreen(a: WatchedAgent): void {
  a.apply(a.arbiter.screen({ state: 'idle', visibleIdle: true, visibleBlocker: false, visibleWorking: false, skipStateUpdate: false, hash: 'idle-prompt' }));
}

/** The agent's process exits and a new one starts in the pane (tmux: dead, then respawned). */
function newProcess(w: Win): void {
  w.a.apply(w.a.arbiter.processExit());
  w.a.apply(w.a.arbiter.processStart({ grace: false }));
  idleScreen(w.a);
}

/** One request as the script writes it (u64 seqs as exact JSON numbers). */
async function send(w: Win, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  return call(w.path, stringifyExact({ id: `${String(params.source)}:1`, method, params: { pane_id: SECRET, ...params } }));
}

/** `$HERDR_BIN_PATH pane …` with the window's environment, as qodercli's, qwen's and hermes's hooks run it. */
async function cli(w: Win, ...args: string[]): Promise<number> {
  process.env.HERDR_SOCKET_PATH = w.path;
  process.env.HERDR_PANE_ID = SECRET;
  process.env.HERDR_ENV = '1';
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  process.exitCode = undefined;
  await main(['node', 'nerdr', 'pane', ...args]);
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return code;
}

async function row(w: Win): Promise<AgentRow> {
  const r = await call(w.path, JSON.stringify({ id: 'ls', method: 'nerdr.ls', params: {} }));
  return (r.result as { agents: AgentRow[] }).agents[0]!;
}

let ns = 1_764_489_600_000_000_000n;
/** Python hooks' seq: time.time_ns(), beyond 2^53. */
const timeNs = (): bigint => (ns += 1000n);
let ms = BigInt(Date.now()) * 1000n;
/** JS/TS plugins' seq: Date.now() * 1000, then +1 per report. */
const jsSeq = (): bigint => ++ms;

const ok = { result: { type: 'ok' } };

describe('a supervisor that listens before it has found its windows (a revival)', () => {
  it('holds a report with a good secret until the windows are known, then applies it: not pane_not_found', async () => {
    let windowsKnown!: () => void;
    const w = await windowFor('kimi', SECRET, new Promise<void>((resolve) => (windowsKnown = resolve)));
    let answered: Record<string, unknown> | null = null;
    const pending = send(w, 'pane.report_agent', { source: 'herdr:kimi', agent: 'kimi', seq: timeNs(), state: 'working' }).then((r) => (answered = r));
    // the socket answers other requests meanwhile: the report is still waiting
    await call(w.path, '{"id":"p","method":"ping","params":{}}');
    expect(answered).toBeNull();
    windowsKnown();
    expect(await pending).toEqual({ id: 'herdr:kimi:1', ...ok });
    expect(await row(w)).toMatchObject({ state: 'working' });
  });
});

describe('a supervisor that lists before it has found its windows', () => {
  it('answers nerdr.ls once the windows are known, not with an empty list; nerdr.info at once', async () => {
    let windowsKnown!: () => void;
    const w = await windowFor('claude', SECRET, new Promise<void>((resolve) => (windowsKnown = resolve)));
    let listed: Record<string, unknown> | null = null;
    const pending = call(w.path, JSON.stringify({ id: 'ls', method: 'nerdr.ls', params: {} })).then((r) => (listed = r));
    const info = await call(w.path, JSON.stringify({ id: 'i', method: 'nerdr.info', params: {} }));
    expect(info.result).toBeDefined();
    expect(listed).toBeNull();
    windowsKnown();
    expect(((await pending).result as { agents: AgentRow[] }).agents).toHaveLength(1);
  });

  it("holds an agent window's nerdr.stop until its window is known, so the refusal applies", async () => {
    let windowsKnown!: () => void;
    const w = await windowFor('claude', SECRET, new Promise<void>((resolve) => (windowsKnown = resolve)));
    let answered: Record<string, unknown> | null = null;
    const pending = call(w.path, JSON.stringify({ id: 's', method: 'nerdr.stop', params: { caller: SECRET } })).then((r) => (answered = r));
    await call(w.path, JSON.stringify({ id: 'i', method: 'nerdr.info', params: {} }));
    expect(answered).toBeNull();
    windowsKnown();
    expect(((await pending).error as { code: string }).code).toBe('not_permitted');
  });
});

describe('ping', () => {
  it("answers herdr's protocol 20 and nerdr's own version (not 0.0.0)", async () => {
    const w = await windowFor('claude');
    const r = await call(w.path, '{"id":"api-client:status","method":"ping","params":{}}');
    expect(r.result).toMatchObject({ type: 'pong', protocol: 20, version: PKG_VERSION });
    expect(PKG_VERSION).not.toBe('0.0.0');
  });
});

describe('session-only hooks over the socket (python): the conversation, never the state', () => {
  it('claude: SessionStart reports the id (its transcript path is not a reference); /clear replaces it, a second startup does not', async () => {
    const w = await windowFor('claude');
    const start = (id: string, source: string) =>
      send(w, 'pane.report_agent_session', { source: 'herdr:claude', agent: 'claude', seq: timeNs(), agent_session_id: id, agent_session_path: `/home/u/.claude/projects/p/${id}.jsonl`, session_start_source: source });
    expect(await start('c-1', 'startup')).toMatchObject(ok);
    expect(await row(w)).toMatchObject({ conversationId: 'c-1', conversationFrom: 'report', state: 'idle' });
    await start('c-2', 'clear');
    expect((await row(w)).conversationId).toBe('c-2');
    await start('c-3', 'startup');
    expect((await row(w)).conversationId).toBe('c-2');
  });

  it('codex: startup and resume replace the id', async () => {
    const w = await windowFor('codex');
    await send(w, 'pane.report_agent_session', { source: 'herdr:codex', agent: 'codex', seq: timeNs(), agent_session_id: 'x-1', session_start_source: 'startup' });
    await send(w, 'pane.report_agent_session', { source: 'herdr:codex', agent: 'codex', seq: timeNs(), agent_session_id: 'x-2', session_start_source: 'resume' });
    expect(await row(w)).toMatchObject({ conversationId: 'x-2', state: 'idle' });
  });

  it('agy (herdr:antigravity_cli): every PreInvocation may name a new conversation; its report_agent is dropped', async () => {
    const w = await windowFor('agy');
    await send(w, 'pane.report_agent_session', { source: 'herdr:antigravity_cli', agent: 'agy', seq: timeNs(), agent_session_id: 'g-1', agent_session_path: '/tmp/t.json' });
    await send(w, 'pane.report_agent_session', { source: 'herdr:antigravity_cli', agent: 'agy', seq: timeNs(), agent_session_id: 'g-2' });
    await send(w, 'pane.report_agent', { source: 'herdr:antigravity_cli', agent: 'agy', state: 'working', seq: timeNs() });
    expect(await row(w)).toMatchObject({ conversationId: 'g-2', state: 'idle' });
  });

  // copilot, cursor, grok, droid, devin: the id of the pane's process cannot be replaced…
  it.each([
    ['copilot', 'herdr:copilot'],
    ['cursor', 'herdr:cursor'],
    ['grok', 'herdr:grok'],
    ['droid', 'herdr:droid'],
    ['devin', 'herdr:devin'],
  ])('%s: a second id from the same process is ignored; after a respawn the new process\'s id is taken (herdr frees it with its owner)', async (agent, source) => {
    const w = await windowFor(agent);
    await send(w, 'pane.report_agent_session', { source, agent, seq: timeNs(), agent_session_id: `${agent}-1` });
    await send(w, 'pane.report_agent_session', { source, agent, seq: timeNs(), agent_session_id: `${agent}-other` });
    expect((await row(w)).conversationId).toBe(`${agent}-1`);
    // devin also reports on every prompt and tool: the same id, accepted, nothing changes
    await send(w, 'pane.report_agent_session', { source, agent, seq: timeNs(), agent_session_id: `${agent}-1` });
    newProcess(w);
    // the new process reports its id with a fresh clock
    await send(w, 'pane.report_agent_session', { source, agent, seq: timeNs(), agent_session_id: `${agent}-2` });
    expect(await row(w)).toMatchObject({ conversationId: `${agent}-2`, conversationFrom: 'report' });
  });
});

describe('session-only hooks through `$HERDR_BIN_PATH pane report-agent-session` (qodercli, qwen, hermes)', () => {
  it('qodercli: --seq time_ns; the id stays the process\'s until a new process reports', async () => {
    const w = await windowFor('qodercli');
    const report = (id: string) => cli(w, 'report-agent-session', SECRET, '--source', 'herdr:qodercli', '--agent', 'qodercli', '--agent-session-id', id, '--seq', String(timeNs()));
    expect(await report('q-1')).toBe(0);
    expect(await report('q-2')).toBe(0);
    expect((await row(w)).conversationId).toBe('q-1');
    newProcess(w);
    expect(await report('q-3')).toBe(0);
    expect((await row(w)).conversationId).toBe('q-3');
  });

  it('qwen: --session-start-source startup|resume|clear|compact|branch replaces the id', async () => {
    const w = await windowFor('qwen');
    expect(await cli(w, 'report-agent-session', SECRET, '--source', 'herdr:qwen', '--agent', 'qwen', '--agent-session-id', 'w-1', '--seq', String(timeNs()), '--session-start-source', 'startup')).toBe(0);
    expect(await cli(w, 'report-agent-session', SECRET, '--source', 'herdr:qwen', '--agent', 'qwen', '--agent-session-id', 'w-2', '--seq', String(timeNs()), '--session-start-source', 'branch')).toBe(0);
    expect((await row(w)).conversationId).toBe('w-2');
  });

  it('hermes: on_session_start (startup), on_session_reset (new), pre_llm_call (resume)', async () => {
    const w = await windowFor('hermes');
    const report = (id: string, start: string) => cli(w, 'report-agent-session', SECRET, '--source', 'herdr:hermes', '--agent', 'hermes', '--seq', String(timeNs()), '--agent-session-id', id, '--session-start-source', start);
    expect(await report('h-1', 'startup')).toBe(0);
    expect(await report('h-2', 'new')).toBe(0);
    expect(await report('h-2', 'resume')).toBe(0);
    expect((await row(w)).conversationId).toBe('h-2');
  });

  it('a secret that starts with "-" still reaches the window (hooks pass it first, unquoted by any option)', async () => {
    const w = await windowFor('qodercli', '-Vq8secret-starting-with-dash0');
    const code = await cli(w, 'report-agent-session', '-Vq8secret-starting-with-dash0', '--source', 'herdr:qodercli', '--agent', 'qodercli', '--agent-session-id', 'q-dash', '--seq', String(timeNs()));
    expect(code).toBe(0);
    expect((await row(w)).conversationId).toBe('q-dash');
  });
});

describe('full-lifecycle hooks (python): their reports are the state', () => {
  it('kimi: SessionStart (startup), UserPromptSubmit working, Stop idle → done; a respawned kimi reports its own id and state', async () => {
    const w = await windowFor('kimi');
    const state = (s: string, id: string) => send(w, 'pane.report_agent', { source: 'herdr:kimi', agent: 'kimi', seq: timeNs(), state: s, agent_session_id: id });
    await send(w, 'pane.report_agent_session', { source: 'herdr:kimi', agent: 'kimi', seq: timeNs(), session_start_source: 'startup', agent_session_id: 'k-1' });
    await state('working', 'k-1');
    expect(await row(w)).toMatchObject({ state: 'working', conversationId: 'k-1' });
    await state('idle', 'k-1');
    expect((await row(w)).state).toBe('done');
    newProcess(w);
    await send(w, 'pane.report_agent_session', { source: 'herdr:kimi', agent: 'kimi', seq: timeNs(), session_start_source: 'startup', agent_session_id: 'k-2' });
    await state('working', 'k-2');
    expect(await row(w)).toMatchObject({ state: 'working', conversationId: 'k-2' });
  });

  it('mastracode: a new thread (SessionStart startup) replaces the id; the old thread\'s state is not the new one\'s', async () => {
    const w = await windowFor('mastracode');
    const state = (s: string, id: string) => send(w, 'pane.report_agent', { source: 'herdr:mastracode', agent: 'mastracode', seq: timeNs(), state: s, agent_session_id: id });
    await send(w, 'pane.report_agent_session', { source: 'herdr:mastracode', agent: 'mastracode', seq: timeNs(), session_start_source: 'startup', agent_session_id: 'm-1' });
    await state('working', 'm-1');
    await send(w, 'pane.report_agent_session', { source: 'herdr:mastracode', agent: 'mastracode', seq: timeNs(), session_start_source: 'startup', agent_session_id: 'm-2' });
    expect((await row(w)).conversationId).toBe('m-2');
    await state('working', 'm-1'); // a late report of the old thread: dropped
    await state('blocked', 'm-2');
    expect(await row(w)).toMatchObject({ state: 'blocked', conversationId: 'm-2' });
  });
});

describe('opencode: the server plugin and the TUI plugin', () => {
  it('after /new the TUI plugin\'s select (no seq) switches the conversation, and the next turn is working, not done', async () => {
    const w = await windowFor('opencode');
    const state = (s: string, id: string) => send(w, 'pane.report_agent', { source: 'herdr:opencode', agent: 'opencode', seq: jsSeq(), state: s, agent_session_id: id });
    const select = (id: string) => send(w, 'pane.report_agent_session', { source: 'herdr:opencode', agent: 'opencode', agent_session_id: id, session_start_source: 'select' });
    // the TUI shows the root session: select, retried after 100 ms, 400 ms, 1 s
    await select('ses_A');
    await select('ses_A');
    // chat.message → working, session.status idle / session.idle → idle
    await state('working', 'ses_A');
    await state('idle', 'ses_A');
    await state('idle', 'ses_A');
    expect(await row(w)).toMatchObject({ state: 'done', conversationId: 'ses_A' });
    // /new: session.created remembers ses_B (sends nothing); the TUI route shows ses_B
    expect(await select('ses_B')).toMatchObject(ok);
    expect((await row(w)).conversationId).toBe('ses_B');
    // the next prompt: chat.message with ses_B
    await state('working', 'ses_B');
    expect(await row(w)).toMatchObject({ state: 'working', conversationId: 'ses_B' });
    // a late report about ses_A changes nothing
    await state('idle', 'ses_A');
    expect((await row(w)).state).toBe('working');
    await state('idle', 'ses_B');
    expect((await row(w)).state).toBe('done');
  });

  it('kilo: session.created reports the session (startup, sequenced); its events are the state', async () => {
    const w = await windowFor('kilo');
    await send(w, 'pane.report_agent_session', { source: 'herdr:kilo', agent: 'kilo', seq: jsSeq(), session_start_source: 'startup', agent_session_id: 'ses_K' });
    await send(w, 'pane.report_agent', { source: 'herdr:kilo', agent: 'kilo', seq: jsSeq(), state: 'blocked', agent_session_id: 'ses_K' });
    expect(await row(w)).toMatchObject({ state: 'blocked', conversationId: 'ses_K' });
  });
});

describe('pi and omp (TS extensions): the session file is the conversation', () => {
  const P1 = '/home/u/.pi/agent/sessions/--home-u-proj--/2026-12-01T10-00-00-000Z_0b7c3f1e.jsonl';
  const P2 = '/home/u/.pi/agent/sessions/--home-u-proj--/2026-12-01T11-00-00-000Z_9d2e4a55.jsonl';

  it('pi: session_start reports agent_session_path, never an id; nerdr records the path and its reports are the state', async () => {
    const w = await windowFor('pi');
    // session_start (tui): reportSession(reason) then publishState(force): idle
    await send(w, 'pane.report_agent_session', { source: 'herdr:pi', agent: 'pi', seq: jsSeq(), session_start_source: 'startup', agent_session_path: P1 });
    await send(w, 'pane.report_agent', { source: 'herdr:pi', agent: 'pi', seq: jsSeq(), state: 'idle', agent_session_path: P1 });
    expect(await row(w)).toMatchObject({ conversationId: P1, conversationFrom: 'report', state: 'idle' });
    // agent_start: reportSession() without a start source, then working
    await send(w, 'pane.report_agent_session', { source: 'herdr:pi', agent: 'pi', seq: jsSeq(), agent_session_path: P1 });
    await send(w, 'pane.report_agent', { source: 'herdr:pi', agent: 'pi', seq: jsSeq(), state: 'working', agent_session_path: P1 });
    expect((await row(w)).state).toBe('working');
    // agent_settled → idle → done
    await send(w, 'pane.report_agent', { source: 'herdr:pi', agent: 'pi', seq: jsSeq(), state: 'idle', agent_session_path: P1 });
    expect((await row(w)).state).toBe('done');
    // /new: session_start with reason "new" and another file
    await send(w, 'pane.report_agent_session', { source: 'herdr:pi', agent: 'pi', seq: jsSeq(), session_start_source: 'new', agent_session_path: P2 });
    await send(w, 'pane.report_agent', { source: 'herdr:pi', agent: 'pi', seq: jsSeq(), state: 'working', agent_session_path: P2 });
    expect(await row(w)).toMatchObject({ conversationId: P2, state: 'working' });
  });

  it('pi without a session file (getSessionFile() not absolute) sends the id instead', async () => {
    const w = await windowFor('pi');
    await send(w, 'pane.report_agent_session', { source: 'herdr:pi', agent: 'pi', seq: jsSeq(), session_start_source: 'startup', agent_session_id: 'pi-id-1' });
    expect((await row(w)).conversationId).toBe('pi-id-1');
  });

  it('omp: session_switch (reason resume) names another session file', async () => {
    const w = await windowFor('omp');
    await send(w, 'pane.report_agent_session', { source: 'herdr:omp', agent: 'omp', seq: jsSeq(), session_start_source: 'startup', agent_session_path: '/home/u/.omp/agent/sessions/a.jsonl' });
    await send(w, 'pane.report_agent', { source: 'herdr:omp', agent: 'omp', seq: jsSeq(), state: 'blocked', message: 'Allow bash?', agent_session_path: '/home/u/.omp/agent/sessions/a.jsonl' });
    expect((await row(w)).state).toBe('blocked');
    await send(w, 'pane.report_agent_session', { source: 'herdr:omp', agent: 'omp', seq: jsSeq(), session_start_source: 'resume', agent_session_path: '/home/u/.omp/agent/sessions/b.jsonl' });
    expect((await row(w)).conversationId).toBe('/home/u/.omp/agent/sessions/b.jsonl');
  });

  it('a path is a reference only for pi and omp (claude\'s transcript path is not)', async () => {
    const w = await windowFor('claude');
    await send(w, 'pane.report_agent_session', { source: 'herdr:claude', agent: 'claude', seq: timeNs(), agent_session_path: '/home/u/.claude/x.jsonl', session_start_source: 'startup' });
    expect((await row(w)).conversationId).toBeNull();
  });
});

describe('custom integrations: report-agent with their own label, report-metadata', () => {
  it('a custom label (--agent mybot) is shown as the agent; metadata adds a title, a display name and state labels', async () => {
    const w = await windowFor('unknown');
    expect(await cli(w, 'report-agent', SECRET, '--source', 'custom:mybot', '--agent', 'mybot', '--state', 'working')).toBe(0);
    expect(await row(w)).toMatchObject({ agent: 'unknown', reportedAgent: 'mybot', state: 'working' });
    expect(await cli(w, 'report-metadata', SECRET, '--source', 'custom:mybot', '--title', 'Fix the login bug', '--display-agent', 'My Bot', '--state-label', 'working=Reviewing PR 12', '--token', 'pr=12')).toBe(0);
    expect(await row(w)).toMatchObject({ title: 'Fix the login bug', displayAgent: 'My Bot', stateLabel: 'Reviewing PR 12', stateLabels: { working: 'Reviewing PR 12' }, tokens: { pr: '12' }, state: 'working' });
    // a label for another state shows with that state only
    expect(await cli(w, 'report-metadata', SECRET, '--source', 'custom:labels', '--state-label', 'blocked=Needs a key')).toBe(0);
    expect((await row(w)).stateLabel).toBe('Reviewing PR 12');
    expect(await cli(w, 'report-agent', SECRET, '--source', 'custom:mybot', '--agent', 'mybot', '--state', 'blocked')).toBe(0);
    expect((await row(w)).stateLabel).toBe('Needs a key');
    // clear
    expect(await cli(w, 'report-metadata', SECRET, '--source', 'custom:mybot', '--clear-title', '--clear-display-agent')).toBe(0);
    expect(await row(w)).toMatchObject({ title: null, displayAgent: null });
    // release: the agent is the window's again
    expect(await cli(w, 'release-agent', SECRET, '--source', 'custom:mybot', '--agent', 'mybot')).toBe(0);
    expect((await row(w)).reportedAgent).toBeNull();
  });

  it('metadata guarded by --agent or --applies-to-source shows only while that holds; a ttl makes it vanish', async () => {
    const w = await windowFor('claude');
    await send(w, 'pane.report_metadata', { source: 'custom:t', agent: 'codex', title: 'not for claude' });
    expect((await row(w)).title).toBeNull();
    await send(w, 'pane.report_metadata', { source: 'custom:u', applies_to_source: 'custom:u', title: 'while custom:u reports' });
    expect((await row(w)).title).toBeNull();
    await send(w, 'pane.report_agent', { source: 'custom:u', agent: 'claude', state: 'working' });
    expect((await row(w)).title).toBe('while custom:u reports');
    await send(w, 'pane.report_metadata', { source: 'custom:v', title: 'short-lived', ttl_ms: 30 });
    expect((await row(w)).title).toBe('short-lived');
    await new Promise((r) => setTimeout(r, 60));
    expect((await row(w)).title).toBe('while custom:u reports');
  });

  it('metadata sequence numbers are their own: an unsequenced report after sequenced ones still applies', async () => {
    const w = await windowFor('claude');
    await send(w, 'pane.report_agent', { source: 'custom:s', agent: 'claude', state: 'working', seq: 10 });
    await send(w, 'pane.report_metadata', { source: 'custom:s', title: 'one', seq: 5 });
    expect((await row(w)).title).toBe('one');
    await send(w, 'pane.report_metadata', { source: 'custom:s', title: 'two' });
    expect((await row(w)).title).toBe('two');
    await send(w, 'pane.report_metadata', { source: 'custom:s', title: 'stale', seq: 4 });
    expect((await row(w)).title).toBe('two');
  });

  it('herdr\'s metadata errors: invalid token, ttl, state label, nothing to set; more than 32 tokens', async () => {
    const w = await windowFor('claude');
    const codes = async (params: Record<string, unknown>) => ((await send(w, 'pane.report_metadata', { source: 'custom:e', ...params })).error as { code: string } | undefined)?.code;
    expect(await codes({ tokens: { 'bad key': 'x' } })).toBe('invalid_metadata_token');
    expect(await codes({ title: 't', ttl_ms: 0 })).toBe('invalid_metadata_ttl');
    expect(await codes({ state_labels: { busy: 'x' } })).toBe('invalid_state_label');
    expect(await codes({})).toBe('invalid_metadata_request');
    expect(await codes({ title: 't', clear_title: true })).toBe('invalid_metadata_request');
    for (let i = 0; i < 2; i++) {
      const tokens = Object.fromEntries(Array.from({ length: 16 }, (_, k) => [`t${i}_${k}`, 'v']));
      expect(await codes({ tokens })).toBeUndefined();
    }
    expect(await codes({ tokens: { one_more: 'v' } })).toBe('metadata_token_limit');
    expect(Object.keys((await row(w)).tokens)).toHaveLength(32);
  });
});
