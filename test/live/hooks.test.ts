// Hooks end to end (issue Integrations): a fake `claude` / `codex` on PATH (helpers/fake-agent.js,
// drawing a real captured idle screen and never exiting) started with `nerdr new <agent> -d`,
// then the real hook payloads of test/fixtures/real/hooks/*.jsonl replayed in order through
// real `nerdr hook <agent>` processes carrying the window's NERDR_TAB / NERDR_SOCKET (read
// from the pane process's environment), with the state checked after every step. Plus the
// hook client's promises (wrong secret, no socket, dead or hung supervisor, huge or binary
// stdin), the conversation id taken from the hooks, and herdr's `nerdr pane …` CLI.
//
// The screen votes too (docs/state-rules.md): the fake screen is a static idle prompt, so
//  - a hook state holds only until the screen may contradict it: `blocked` with no dialog on
//    screen becomes idle (answered, not done) 2 s after the hook; `working` with an idle,
//    unchanged screen becomes idle (interrupted, not done) after 3 s. Those are exactly what
//    a person sees after the marks "denied with Esc" / "interrupt with Esc", where no hook
//    fires. Everywhere else the next hook is sent at once, and the state right after each hook
//    is the hook's: PermissionRequest / AskUserQuestion → blocked at once; UserPromptSubmit,
//    PreToolUse, PostToolUse → working; Stop → done (the idle screen agrees, nobody looked).
//  - SessionStart / SessionEnd clear the hook phase: the idle screen decides (idle, or the done
//    not seen yet stays done).
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, pidAlive, run, startLiveEnv, tmuxAvailable, waitFor, type AgentRowLike, type LiveEnv, type RunResult, paneEnv } from './helpers/env.js';
import { StateRecorder } from './helpers/recorder.js';
import { SHARED_FIXTURES } from '../shared-fixtures.js';

const FIXTURES = SHARED_FIXTURES;
const FAKE = path.join(REPO_ROOT, 'test', 'live', 'helpers', 'fake-agent.js');
const hasFixtures = (() => {
  try {
    readFileSync(path.join(FIXTURES, 'hooks', 'claude-hooks.jsonl'));
    return true;
  } catch {
    return false;
  }
})();

interface Explained {
  state: string;
  arbiter: { reason: string; hookPhase: string | null; authority: string; conversationId: string | null; conversationFrom: string | null; subagents: number; report: unknown };
  [k: string]: unknown;
}

async function explain(env: LiveEnv, target: string): Promise<Explained> {
  const r = await env.nerdr('explain', target, '--json');
  if (r.code !== 0) throw new Error(`nerdr explain exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Explained;
}

async function row(env: LiveEnv, win: string): Promise<AgentRowLike> {
  const r = (await env.lsJson()).find((a) => a.window === win);
  if (!r) throw new Error(`${win} is not in nerdr ls`);
  return r;
}

type Line = { mark: string } | { event: Record<string, unknown>; text: string };

function readJsonl(file: string): Line[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((text) => {
      const o = JSON.parse(text) as Record<string, unknown>;
      return typeof o.harness_mark === 'string' ? { mark: o.harness_mark } : { event: o, text };
    });
}

/** The agent window's hook environment, as the agent's hook processes get it. */
interface HookEnv {
  NERDR_TAB: string;
  NERDR_SOCKET: string;
  HERDR_PANE_ID: string;
  HERDR_SOCKET_PATH: string;
}

/** Runs `nerdr hook <agent>` exactly as an agent would: no -L, the pane's variables, the payload on stdin. */
async function hook(env: LiveEnv, agent: string, he: Partial<HookEnv>, input: string | Buffer, extra: Record<string, string | undefined> = {}): Promise<RunResult & { ms: number }> {
  const t0 = Date.now();
  const r = await runHook(env, agent, he, input, extra);
  return { ...r, ms: Date.now() - t0 };
}

function runHook(env: LiveEnv, agent: string, he: Partial<HookEnv>, input: string | Buffer, extra: Record<string, string | undefined>): Promise<RunResult> {
  if (typeof input === 'string') {
    return env.nerdrWith(['hook', agent], { noServer: true, input, timeoutMs: 15_000, env: { NERDR_TAB: he.NERDR_TAB, NERDR_SOCKET: he.NERDR_SOCKET, ...extra } });
  }
  // binary stdin: the harness runner takes strings only
  return new Promise((resolve, reject) => {
    const e: NodeJS.ProcessEnv = { ...env.env, NERDR_TAB: he.NERDR_TAB, NERDR_SOCKET: he.NERDR_SOCKET, ...extra };
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'nerdr.js'), 'hook', agent], { env: e, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** What must follow one hook line, and why (docs/state-rules.md). */
interface Expect {
  state: string;
  why: string;
}

/** The state a person watching names right after each hook event (index = line in the file). */
function claudeExpectation(ev: Record<string, unknown>): Expect {
  const name = String(ev.hook_event_name);
  const tool = String(ev.tool_name ?? '');
  switch (name) {
    case 'UserPromptSubmit':
      return { state: 'working', why: 'prompt-submit → working' };
    case 'PreToolUse':
      return tool === 'AskUserQuestion' ? { state: 'blocked', why: 'PreToolUse AskUserQuestion → question → blocked at once' } : { state: 'working', why: 'tool → working' };
    case 'PermissionRequest':
      return { state: 'blocked', why: 'permission (or question) → blocked at once' };
    case 'PostToolUse':
      return { state: 'working', why: 'tool → working (the dialog was answered)' };
    case 'SubagentStart':
    case 'SubagentStop':
      return { state: 'working', why: 'subagents are counted; the turn still runs' };
    case 'Stop':
      return { state: 'done', why: 'turn-end with no background work, idle screen, nobody looked → done' };
    default:
      throw new Error(`no expectation for ${name}`);
  }
}

describe.skipIf(!tmuxAvailable || !hasFixtures)('hooks: real payloads through `nerdr hook`, live', () => {
  let env: LiveEnv;
  let bin = '';
  const recorders: StateRecorder[] = [];

  beforeAll(async () => {
    // PATH is fixed when the tmux server starts (panes inherit it): make the bin folder first
    const root = path.join(process.env.TMPDIR ?? '/tmp', `nerdr-fake-bin-${process.pid}-${Date.now()}`);
    bin = path.join(root, 'bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(FAKE, path.join(bin, 'claude'));
    symlinkSync(FAKE, path.join(bin, 'codex'));
    // herdr's integrations below: agents whose herdr scripts are played by the test itself
    for (const name of ['opencode', 'pi', 'cursor-agent']) symlinkSync(FAKE, path.join(bin, name));
    env = await startLiveEnv({ env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` } });
  }, 60_000);

  afterAll(async () => {
    for (const r of recorders) r.stop();
    await env?.cleanup();
    if (bin) (await import('node:fs')).rmSync(path.dirname(bin), { recursive: true, force: true });
  });

  async function startFake(agent: string, screen: string): Promise<{ win: string; he: HookEnv; rec: StateRecorder }> {
    // new panes take their environment from the tmux server's global one
    await env.tmuxOk('set-environment', '-g', 'FAKE_AGENT_SCREEN', screen);
    const r = await env.nerdrWith(['new', agent, '-d', '--name', `fake-${agent}`], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const win = r.stdout.trim();
    const pe = await paneEnv(env, win);
    const he: HookEnv = { NERDR_TAB: pe.NERDR_TAB!, NERDR_SOCKET: pe.NERDR_SOCKET!, HERDR_PANE_ID: pe.HERDR_PANE_ID!, HERDR_SOCKET_PATH: pe.HERDR_SOCKET_PATH! };
    expect(he.NERDR_TAB).toMatch(/\S{16,}/);
    expect(he.NERDR_SOCKET).toBeTruthy();
    expect(he.HERDR_PANE_ID).toBe(he.NERDR_TAB);
    const rec = new StateRecorder(win);
    recorders.push(rec);
    await rec.start(he.NERDR_SOCKET);
    return { win, he, rec };
  }

  /** Sends one hook line and waits for the state that must follow it. */
  async function step(agent: string, win: string, he: HookEnv, rec: StateRecorder, text: string, ev: Record<string, unknown>, exp: Expect): Promise<void> {
    const name = String(ev.hook_event_name);
    const before = rec.last?.state;
    const m = rec.mark;
    const r = await hook(env, agent, he, text);
    expect(r.code, `nerdr hook ${agent} (${name}): ${r.stderr}`).toBe(0);
    expect(r.stdout).toBe('');
    const what = `${name}: ${exp.why}`;
    if (exp.state !== before) {
      await rec.reached(exp.state, m, 15_000).catch(async (e: Error) => {
        throw new Error(`${what}: ${e.message}; before: ${String(before)}; rows: ${rec.tail()}; explain: ${(await explain(env, win)).arbiter.reason}`);
      });
      // the first state after the hook is the hook's own
      expect(rec.states(m)[0], what).toBe(exp.state);
    } else {
      // no change to see: the hook process has exited, so its event was answered (applied)
      await waitFor(() => rec.last?.state === exp.state, { timeoutMs: 5000, what: `${what} (rows: ${rec.tail()})` });
    }
  }

  describe('claude', () => {
    let win = '';
    let he: HookEnv;
    let rec: StateRecorder;
    const lines = hasFixtures ? readJsonl(path.join(FIXTURES, 'hooks', 'claude-hooks.jsonl')) : [];
    const idleScreen = path.join(FIXTURES, 'screens', 'claude', '01-startup-idle.ansi.txt');
    let cursor = 0;

    /** Replays lines from the cursor up to (not including) the line whose mark matches `until`. */
    async function replayUntil(until: RegExp | null, handle?: (ev: Record<string, unknown>) => Promise<boolean>): Promise<void> {
      for (; cursor < lines.length; cursor++) {
        const l = lines[cursor]!;
        if ('mark' in l) {
          if (until && until.test(l.mark)) {
            cursor++;
            return;
          }
          continue;
        }
        if (handle && (await handle(l.event))) continue;
        await step('claude', win, he, rec, l.text, l.event, claudeExpectation(l.event));
      }
      if (until) throw new Error(`no mark ${until} in the fixture`);
    }

    beforeAll(async () => {
      ({ win, he, rec } = await startFake('claude', idleScreen));
    }, 90_000);

    it('the fake claude is identified and read from its screen: unknown during the grace, then idle', async () => {
      const r = await row(env, win);
      expect(r.agent).toBe('claude');
      await rec.reached('idle', 0, 20_000);
      expect(rec.states()).not.toContain('done');
      const e = await explain(env, win);
      expect(e.arbiter.hookPhase).toBeNull();
    });

    it('a wrong secret changes nothing (and the hook still exits 0 with nothing on stdout)', async () => {
      const perm = lines.find((l) => 'event' in l && l.event.hook_event_name === 'PermissionRequest') as { text: string };
      const m = rec.mark;
      const r = await hook(env, 'claude', { ...he, NERDR_TAB: 'not-the-secret-' + he.NERDR_TAB.slice(0, 8) }, perm.text, { NERDR_HOOK_DEBUG: '1' });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      // a pane report with a wrong pane id is refused the same way, and says so
      const p = await env.nerdrWith(['pane', 'report-agent', '--source', 'custom:test', '--agent', 'claude', '--state', 'blocked'], {
        noServer: true,
        env: { HERDR_PANE_ID: 'wrong-secret', HERDR_SOCKET_PATH: he.HERDR_SOCKET_PATH },
      });
      expect(p.code).toBe(1);
      expect(p.stderr).toContain('pane_not_found');
      const e = await explain(env, win);
      expect(e.state).toBe('idle');
      expect(e.arbiter.hookPhase).toBeNull();
      expect(e.arbiter.report).toBeNull();
      expect(rec.states(m).filter((s) => s !== 'idle')).toEqual([]);
    });

    it('first turn: SessionStart, prompt, Bash tool, permission (blocked at once), approved, Stop → done', async () => {
      // SessionStart (startup): clears the hook phase, the idle screen decides: idle
      await replayUntil(/^send: Please RUN_BASH/, async (ev) => {
        const h = await hook(env, 'claude', he, JSON.stringify(ev));
        expect(h.code).toBe(0);
        await waitFor(async () => (await explain(env, win)).arbiter.conversationId === ev.session_id, { what: 'the conversation id of SessionStart' });
        expect((await row(env, win)).state).toBe('idle');
        return true;
      });
      // UserPromptSubmit → working, PreToolUse → working, PermissionRequest → blocked
      await replayUntil(/^permission prompt visible/);
      expect(rec.last?.state === 'blocked' || rec.states().slice(-2).includes('blocked')).toBe(true);
      await replayUntil(/^approved/);
      // PostToolUse → working, Stop → done
      await replayUntil(/^send: ASK_QUESTION/);
      const r = await row(env, win);
      expect(r.state).toBe('done');
      expect(r.seen).toBe(false);
    });

    it('a question (AskUserQuestion): blocked at its PreToolUse, answered → working, Stop → done', async () => {
      const m = rec.mark;
      await replayUntil(/^question visible/);
      expect(rec.states(m)).toContain('blocked');
      await replayUntil(/^answered/);
      await replayUntil(/^send: SUBAGENT/);
      expect(rec.states(m).slice(0, 3)).toEqual(['working', 'blocked', 'working'].slice(0, 3));
      expect((await row(env, win)).state).toBe('done');
    });

    it('a subagent: counted while it runs, Stop → done', async () => {
      // SubagentStart/Stop set no state of their own (they are counted): with the idle screen,
      // a turn whose hooks pause for 3 s would read as interrupted, so they are only checked by
      // their count, read from the recorder without slowing the replay down
      const m = rec.mark;
      let counted = 0;
      await replayUntil(/^send: RUN_BASH again/, async (ev) => {
        if (ev.hook_event_name !== 'SubagentStart' && ev.hook_event_name !== 'SubagentStop') return false;
        const h = await hook(env, 'claude', he, JSON.stringify(ev));
        expect(h.code).toBe(0);
        const want = ev.hook_event_name === 'SubagentStart' ? 1 : 0;
        await waitFor(() => rec.last?.subagents === want, { what: `${String(ev.hook_event_name)}: ${want} subagent(s) counted (rows: ${rec.tail()})` });
        counted++;
        return true;
      });
      expect(counted).toBe(2);
      expect(rec.rows.slice(m).some(({ row }) => row.subagents === 1)).toBe(true);
      const r = await row(env, win);
      expect(r.state).toBe('done');
      expect(r.subagents).toBe(0);
      expect(rec.states(m)[0]).toBe('working');
      expect(rec.states(m).at(-1)).toBe('done');
      expect(rec.states(m)).not.toContain('blocked');
    });

    it('denied with Esc (no hook fires): blocked, then idle (answered, not done) once the screen shows no dialog for 2 s', async () => {
      const m = rec.mark;
      await replayUntil(/^denied with Esc/);
      expect(rec.states(m)).toContain('blocked');
      const m2 = rec.mark;
      await rec.reached('idle', m2, 15_000);
      expect(rec.states(m2)).toEqual(['idle']);
      const r = await row(env, win);
      expect(r.state).toBe('idle');
    });

    it('interrupted with Esc (no hook fires): working, then idle (interrupted, not done) once the idle screen stays unchanged 3 s', async () => {
      const m = rec.mark;
      await replayUntil(/^interrupt with Esc/);
      expect(rec.states(m)).toContain('working');
      const m2 = rec.mark;
      await rec.reached('idle', m2, 15_000);
      expect(rec.states(m2)).toEqual(['idle']);
      const e = await explain(env, win);
      expect(e.state).toBe('idle');
      expect(e.arbiter.reason).toMatch(/interrupt/);
    });

    it('/exit and resume: SessionEnd and SessionStart(resume) leave the idle screen in charge; the conversation id is the hooks\' (from "hook")', async () => {
      let sessionId = '';
      await replayUntil(/^send: hello after resume/, async (ev) => {
        const h = await hook(env, 'claude', he, JSON.stringify(ev));
        expect(h.code).toBe(0);
        sessionId = String(ev.session_id);
        await waitFor(async () => (await explain(env, win)).arbiter.reason.includes(String(ev.hook_event_name)) || (await row(env, win)).conversationFrom === 'hook', {
          what: `${String(ev.hook_event_name)} applied`,
        });
        expect((await row(env, win)).state).toBe('idle');
        return true;
      });
      const r = await waitFor(async () => {
        const x = await row(env, win);
        return x.conversationId === sessionId && x.conversationFrom === 'hook' ? x : null;
      }, { what: `conversationId ${sessionId} from hook in nerdr ls --json` });
      expect(r.conversationId).toBe('d7704408-5d9f-428b-a660-916b7b8d7ddc');
      expect(r.state).toBe('idle');
    });

    it('after the resume: prompt → working, Stop → done; the last SessionEnd leaves it done (not seen)', async () => {
      const m = rec.mark;
      await replayUntil(/^exit2/);
      expect(rec.states(m)).toEqual(['working', 'done']);
      await replayUntil(null, async (ev) => {
        expect(ev.hook_event_name).toBe('SessionEnd');
        const h = await hook(env, 'claude', he, JSON.stringify(ev));
        expect(h.code).toBe(0);
        await waitFor(async () => (await explain(env, win)).arbiter.hookPhase === null, { what: 'SessionEnd clears the hook phase' });
        return true;
      });
      const r = await row(env, win);
      expect(r.state).toBe('done');
      expect(r.seen).toBe(false);
    });

    it('herdr\'s CLI with the pane\'s env: `nerdr pane report-agent --source custom:test … --state blocked` sets blocked, release-agent releases it', async () => {
      const paneEnvOnly = { HERDR_PANE_ID: he.HERDR_PANE_ID, HERDR_SOCKET_PATH: he.HERDR_SOCKET_PATH, NERDR_TAB: undefined, NERDR_SOCKET: undefined };
      const m = rec.mark;
      const r = await env.nerdrWith(['pane', 'report-agent', '--source', 'custom:test', '--agent', 'claude', '--state', 'blocked'], { noServer: true, env: paneEnvOnly });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      await rec.reached('blocked', m);
      const e = await explain(env, win);
      expect(e.arbiter.authority).toMatch(/report|custom/);
      // a custom report has no timeout: still blocked well past the screen's 2 s "answered" rule
      await waitFor(() => rec.states(m).length > 1, { timeoutMs: 4000 }).catch(() => undefined);
      expect(rec.states(m)).toEqual(['blocked']);
      const m2 = rec.mark;
      const rel = await env.nerdrWith(['pane', 'release-agent', '--source', 'custom:test', '--agent', 'claude'], { noServer: true, env: paneEnvOnly });
      expect(rel.code, rel.stderr).toBe(0);
      expect(rel.stdout).toBe('');
      await waitFor(() => rec.states(m2).some((s) => s === 'idle' || s === 'done'), { what: 'the report released: the screen decides again' });
      const after = await explain(env, win);
      expect(after.arbiter.report).toBeNull();
      expect(['idle', 'done']).toContain(after.state);
    });
  });

  describe('codex', () => {
    let win = '';
    let he: HookEnv;
    let rec: StateRecorder;
    const lines = hasFixtures ? readJsonl(path.join(FIXTURES, 'hooks', 'codex-hooks.jsonl')) : [];

    beforeAll(async () => {
      ({ win, he, rec } = await startFake('codex', path.join(FIXTURES, 'screens', 'codex', '02-startup-idle.ansi.txt')));
      await rec.reached('idle', 0, 20_000);
    }, 90_000);

    it('replays codex-hooks.jsonl: approve turn → done; deny with Esc → blocked then idle; interrupt → working then idle', async () => {
      expect((await row(env, win)).agent).toBe('codex');
      let i = 0;
      const next = async (until: RegExp | null): Promise<void> => {
        for (; i < lines.length; i++) {
          const l = lines[i]!;
          if ('mark' in l) {
            if (until?.test(l.mark)) {
              i++;
              return;
            }
            continue;
          }
          const name = String(l.event.hook_event_name);
          if (name === 'SessionStart' || name === 'SessionEnd') {
            const h = await hook(env, 'codex', he, l.text);
            expect(h.code).toBe(0);
            expect(h.stdout).toBe('');
            await waitFor(async () => (await explain(env, win)).arbiter.hookPhase === null && (await explain(env, win)).arbiter.conversationId === l.event.session_id, {
              what: `codex ${name} applied`,
            });
            continue;
          }
          await step('codex', win, he, rec, l.text, l.event, claudeExpectation(l.event));
        }
        if (until) throw new Error(`no mark ${until}`);
      };
      let m = rec.mark;
      await next(/^approval visible/);
      expect(rec.states(m)).toEqual(['working', 'blocked']);
      await next(/^send: RUN_BASH again/);
      // PostToolUse → working; the Stop comes after this mark in the file
      await next(/^denied with Esc/);
      // Stop → done, then the next prompt → working, permission → blocked
      expect(rec.states(m)).toContain('done');
      m = rec.mark;
      await rec.reached('idle', m, 15_000);
      expect(rec.states(m)).toEqual(['idle']);
      m = rec.mark;
      await next(/^interrupt/);
      expect(rec.states(m)).toEqual(['working']);
      m = rec.mark;
      await rec.reached('idle', m, 15_000);
      expect(rec.states(m)).toEqual(['idle']);
      await next(null);
      const r = await row(env, win);
      expect(r.state).toBe('idle');
      expect(r.conversationId).toBe('01a22b65-6df2-7030-833c-53900e4b3eb7');
      expect(r.conversationFrom).toBe('hook');
    });
  });

  // herdr's own integration scripts, played as they talk: the JS/TS plugins write JSON lines to
  // HERDR_SOCKET_PATH with HERDR_PANE_ID; the python hooks of qodercli, qwen and hermes run
  // `$HERDR_BIN_PATH pane report-agent-session <HERDR_PANE_ID> …`. Everything from the pane's
  // own environment (/proc), as the agent's processes get it.
  describe("herdr's integration scripts in a nerdr window", () => {
    /** One request line as herdr's plugins write it (u64 seqs as exact JSON numbers); the reply. */
    function herdrLine(socketPath: string, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
      const text = JSON.stringify({ id: `${String(params.source)}:${Date.now()}`, method, params }, (_k, v: unknown) => (typeof v === 'bigint' ? `#big:${v}` : v)).replace(/"#big:(\d+)"/g, '$1');
      return new Promise((resolve, reject) => {
        const sock = connect(socketPath);
        let buf = '';
        const timer = setTimeout(() => {
          sock.destroy();
          reject(new Error(`no reply to ${method} within 5 s`));
        }, 5000);
        sock.on('connect', () => sock.write(text + '\n'));
        sock.on('data', (d) => {
          buf += d.toString('utf8');
          const nl = buf.indexOf('\n');
          if (nl === -1) return;
          clearTimeout(timer);
          sock.destroy();
          resolve(JSON.parse(buf.slice(0, nl)) as Record<string, unknown>);
        });
        sock.on('error', (e) => {
          clearTimeout(timer);
          reject(e);
        });
      });
    }

    /** `$HERDR_BIN_PATH pane …` with exactly the pane's environment (as qodercli's hook runs it). */
    async function herdrBin(pe: Record<string, string>, ...args: string[]): Promise<RunResult> {
      return run(pe.HERDR_BIN_PATH!, ['pane', ...args], { env: pe, timeoutMs: 15_000 });
    }

    let ns = 1_764_489_600_000_000_000n;
    const timeNs = (): bigint => (ns += 1000n);
    let jsSeq = BigInt(Date.now()) * 1000n;
    const nextJs = (): bigint => ++jsSeq;
    let cursorWin = '';

    it('opencode: after /new the TUI plugin\'s unsequenced select switches the conversation, and the next turn is working, not done', async () => {
      const { win } = await startFake('opencode', path.join(FIXTURES, 'screens', 'opencode', '01-startup-idle.ansi.txt'));
      const pe = await paneEnv(env, win);
      const sock = pe.HERDR_SOCKET_PATH!;
      const base = { pane_id: pe.HERDR_PANE_ID, source: 'herdr:opencode', agent: 'opencode' };
      const select = (id: string) => herdrLine(sock, 'pane.report_agent_session', { ...base, agent_session_id: id, session_start_source: 'select' });
      const state = (s: string, id: string) => herdrLine(sock, 'pane.report_agent', { ...base, seq: nextJs(), state: s, agent_session_id: id });
      expect(await select('ses_A')).toMatchObject({ result: { type: 'ok' } });
      await state('working', 'ses_A');
      await waitFor(async () => (await row(env, win)).state === 'working', { what: 'opencode working (ses_A)' });
      await state('idle', 'ses_A');
      await waitFor(async () => (await row(env, win)).state === 'done', { what: 'opencode done (ses_A)' });
      // /new: the TUI route shows ses_B, reported again after 100 ms, 400 ms, 1 s
      for (let i = 0; i < 2; i++) expect(await select('ses_B')).toMatchObject({ result: { type: 'ok' } });
      await waitFor(async () => (await row(env, win)).conversationId === 'ses_B', { what: 'the conversation switched to ses_B' });
      // the next prompt (chat.message) is about ses_B
      await state('working', 'ses_B');
      const r = await waitFor(async () => {
        const x = await row(env, win);
        return x.state === 'working' ? x : null;
      }, { what: 'working in the new conversation' });
      expect(r).toMatchObject({ conversationId: 'ses_B', conversationFrom: 'report' });
    });

    it('pi: the extension reports agent_session_path, never an id; nerdr records it as the conversation and shows it', async () => {
      // started by hand in a watched window (`--cmd`): nerdr finds pi among the pane's processes
      await env.tmuxOk('set-environment', '-g', 'FAKE_AGENT_SCREEN', path.join(FIXTURES, 'screens', 'claude', '01-startup-idle.ansi.txt'));
      const started = await env.nerdrWith(['new', '--cmd', 'exec pi', '-d', '--name', 'fake-pi'], { timeoutMs: 60_000 });
      expect(started.code, started.stderr).toBe(0);
      const win = started.stdout.trim();
      await waitFor(async () => (await row(env, win)).agent === 'pi', { timeoutMs: 20_000, what: 'pi identified in the window' });
      const pe = await paneEnv(env, win);
      const file = path.join(env.home, '.pi', 'agent', 'sessions', '--proj--', '2026-12-01T10-00-00-000Z_0b7c3f1e.jsonl');
      const base = { pane_id: pe.HERDR_PANE_ID, source: 'herdr:pi', agent: 'pi' };
      // session_start (tui): the session with its reason, then the state (idle), then a turn
      await herdrLine(pe.HERDR_SOCKET_PATH!, 'pane.report_agent_session', { ...base, seq: nextJs(), session_start_source: 'startup', agent_session_path: file });
      await herdrLine(pe.HERDR_SOCKET_PATH!, 'pane.report_agent', { ...base, seq: nextJs(), state: 'idle', agent_session_path: file });
      await herdrLine(pe.HERDR_SOCKET_PATH!, 'pane.report_agent_session', { ...base, seq: nextJs(), agent_session_path: file });
      await herdrLine(pe.HERDR_SOCKET_PATH!, 'pane.report_agent', { ...base, seq: nextJs(), state: 'working', agent_session_path: file });
      const r = await waitFor(async () => {
        const x = await row(env, win);
        return x.state === 'working' && x.conversationId ? x : null;
      }, { what: "pi working with its session file as the conversation" });
      expect(r).toMatchObject({ agent: 'pi', conversationId: file, conversationFrom: 'report' });
      const ls = await env.nerdr('ls');
      expect(ls.stdout).toContain('2026-12-01T10');
      const e = await explain(env, win);
      expect(e.arbiter.conversationId).toBe(file);
      expect(e.arbiter.authority).toBe('lifecycle');
    });

    it("cursor via herdr's CLI: the id of the running process stays; after nerdr.respawn the new process's id is taken", async () => {
      const { win, he } = await startFake('cursor', path.join(FIXTURES, 'screens', 'claude', '01-startup-idle.ansi.txt'));
      cursorWin = win;
      let pe = await paneEnv(env, win);
      const session = (p: Record<string, string>, id: string) =>
        herdrBin(p, 'report-agent-session', p.HERDR_PANE_ID!, '--source', 'herdr:cursor', '--agent', 'cursor', '--agent-session-id', id, '--seq', String(timeNs()));
      for (const id of ['cur-1', 'cur-other']) {
        const r = await session(pe, id);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout + r.stderr).toBe('');
      }
      expect((await row(env, win)).conversationId).toBe('cur-1');
      // a new cursor in the same pane (what nerdr restore does when a resume fails): no id given
      const resp = await herdrLine(he.NERDR_SOCKET, 'nerdr.respawn', { target: win, argv: [path.join(bin, 'cursor-agent')] });
      expect(resp.error, JSON.stringify(resp)).toBeUndefined();
      pe = await waitFor(async () => {
        const x = await paneEnv(env, win);
        return x.HERDR_PANE_ID && x.HERDR_PANE_ID !== he.HERDR_PANE_ID ? x : null;
      }, { what: 'the respawned process with its new secret' });
      const r = await session(pe, 'cur-2');
      expect(r.code, r.stderr).toBe(0);
      const after = await waitFor(async () => {
        const x = await row(env, win);
        return x.conversationId === 'cur-2' ? x : null;
      }, { what: "the new process's conversation cur-2 in nerdr ls" });
      expect(after.conversationFrom).toBe('report');
      // the old secret is no longer the window's
      const old = await session({ ...pe, HERDR_PANE_ID: he.HERDR_PANE_ID }, 'cur-late');
      expect(old.code).toBe(1);
      expect(old.stderr).toContain('pane_not_found');
    });

    it("herdr's CLI usage errors exit 2 (bin/nerdr.js), --session NAME is accepted", async () => {
      const pe = await paneEnv(env, cursorWin);
      const missing = await herdrBin(pe, 'report-agent-session', pe.HERDR_PANE_ID!, '--source', 'herdr:cursor');
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/missing required --agent/);
      expect((await herdrBin(pe, 'report-agent', pe.HERDR_PANE_ID!, '--source', 's', '--agent', 'a', '--state', 'idle', '--bogus', 'x')).code).toBe(2);
      const r = await run(pe.HERDR_BIN_PATH!, ['--session', 'work', 'pane', 'report-agent-session', pe.HERDR_PANE_ID!, '--source', 'herdr:cursor', '--agent', 'cursor', '--agent-session-id', 'cur-2', '--seq', String(timeNs())], { env: pe });
      expect(r.code, r.stderr).toBe(0);
    });

    it('a custom integration: its own label and its metadata (title, display name, state label) show in ls and explain', async () => {
      const r = await env.nerdrWith(['new', '--cmd', 'sleep 100000', '-d', '--name', 'mybot-win'], { timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(0);
      const win = r.stdout.trim();
      const pe = await paneEnv(env, win);
      expect((await herdrBin(pe, 'report-agent', pe.HERDR_PANE_ID!, '--source', 'custom:mybot', '--agent', 'mybot', '--state', 'working')).code).toBe(0);
      const meta = await herdrBin(pe, 'report-metadata', pe.HERDR_PANE_ID!, '--source', 'custom:mybot', '--title', 'Fix the login bug', '--display-agent', 'My Bot', '--state-label', 'working=Reviewing PR 12');
      expect(meta.code, meta.stderr).toBe(0);
      const x = await waitFor(async () => {
        const a = await row(env, win);
        return a.title ? a : null;
      }, { what: 'the metadata in nerdr ls --json' });
      expect(x).toMatchObject({ agent: 'unknown', reportedAgent: 'mybot', displayAgent: 'My Bot', state: 'working', stateLabel: 'Reviewing PR 12' });
      const ls = (await env.nerdr('ls')).stdout;
      const line = ls.split('\n').find((l) => l.startsWith('mybot-win'))!;
      expect(ls.split('\n')[0]).toMatch(/^NAME\s+TITLE\s+AGENT/);
      expect(line).toContain('Fix the login bug');
      expect(line).toContain('My Bot');
      expect(line).toContain('working (Reviewing PR 12)');
      const ex = await env.nerdr('explain', win);
      expect(ex.stdout).toContain('title: Fix the login bug');
      expect(ex.stdout).toContain('reported as mybot');
    });
  });

  describe('the hook client never gets in the agent\'s way', () => {
    let win = '';
    let he: HookEnv;

    beforeAll(async () => {
      win = (await env.lsJson()).find((a) => a.agent === 'claude')!.window;
      const pe = await paneEnv(env, win);
      he = { NERDR_TAB: pe.NERDR_TAB!, NERDR_SOCKET: pe.NERDR_SOCKET!, HERDR_PANE_ID: pe.HERDR_PANE_ID!, HERDR_SOCKET_PATH: pe.HERDR_SOCKET_PATH! };
    });

    const prompt = JSON.stringify({ session_id: 'd7704408-5d9f-428b-a660-916b7b8d7ddc', hook_event_name: 'UserPromptSubmit', prompt: 'x' });

    it('without NERDR_SOCKET: exits 0 at once, stdout empty', async () => {
      const r = await hook(env, 'claude', { NERDR_TAB: he.NERDR_TAB }, prompt, { NERDR_SOCKET: undefined });
      expect(r.code).toBe(0);
      expect(r.signal).toBeNull();
      expect(r.stdout).toBe('');
      expect(r.ms).toBeLessThan(5000);
    });

    it('2 MiB and binary stdin: exit 0, nothing on stdout, the state does not change', async () => {
      const before = await explain(env, win);
      const big = `{"hook_event_name":"UserPromptSubmit","prompt":"${'x'.repeat(2 * 1024 * 1024)}"}`;
      const r1 = await hook(env, 'claude', he, big);
      expect(r1.code).toBe(0);
      expect(r1.stdout).toBe('');
      const bin = Buffer.alloc(64 * 1024);
      for (let i = 0; i < bin.length; i++) bin[i] = (i * 131 + 7) & 0xff;
      const r2 = await hook(env, 'claude', he, bin);
      expect(r2.code).toBe(0);
      expect(r2.stdout).toBe('');
      const after = await explain(env, win);
      expect(after.state).toBe(before.state);
      expect(after.arbiter.hookPhase).toBe(before.arbiter.hookPhase);
    });

    it('a hung supervisor (SIGSTOP): exits 0 within its deadline', async () => {
      const pid = await env.supervisorPid();
      expect(pid).not.toBeNull();
      process.kill(pid!, 'SIGSTOP');
      try {
        const r = await hook(env, 'claude', he, prompt);
        expect(r.code).toBe(0);
        expect(r.stdout).toBe('');
        expect(r.ms).toBeLessThan(5000);
      } finally {
        process.kill(pid!, 'SIGCONT');
      }
    });

    it('a dead supervisor (kill -9): exits 0 within ~1 s, stdout empty', async () => {
      const pid = await env.supervisorPid();
      expect(pid).not.toBeNull();
      process.kill(pid!, 'SIGKILL');
      await waitFor(() => !pidAlive(pid!), { what: 'the supervisor gone' });
      const r = await hook(env, 'claude', he, prompt);
      expect(r.code).toBe(0);
      expect(r.signal).toBeNull();
      expect(r.stdout).toBe('');
      // node's own start-up is part of it; generous on a busy machine
      expect(r.ms).toBeLessThan(3000);
    });
  });
});
