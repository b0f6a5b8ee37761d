// Claude Code's status file (sessions/<pid>.json) as a source, end to end: a fake `claude` on PATH
// (helpers/fake-agent.js: a real captured idle screen, and a status file kept as Claude 2.1.3xx
// keeps it: its pid and start ticks, rewritten in place) in windows made by `nerdr new`, the
// supervisor finding the file among the pane's processes (under nerdr's exit guard)
// and following it. docs/state-rules.md, "The status file".
//  - without hooks (`--no-hooks`) the file stands in for them: busy → working, waiting → blocked,
//    busy → working, idle → done; waiting → idle straight away is a refusal: idle;
//  - with hooks, a prompt's hook says working and the file's idle with no Stop hook ends the turn
//    idle (a stop), decided by the file (authority status), before the screen's own 3 s rule.
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startLiveEnv, tmuxAvailable, waitFor, paneEnv, type LiveEnv } from './helpers/env.js';
import { StateRecorder } from './helpers/recorder.js';
import { SHARED_FIXTURES } from '../shared-fixtures.js';

const FAKE = path.join(REPO_ROOT, 'test', 'live', 'helpers', 'fake-agent.js');
const IDLE_SCREEN = path.join(SHARED_FIXTURES, 'screens', 'claude', '01-startup-idle.ansi.txt');
const WORKING_SCREEN = path.join(SHARED_FIXTURES, 'screens', 'claude', '02-working-spinner.ansi.txt');
const HOOKS = path.join(SHARED_FIXTURES, 'hooks', 'claude-hooks.jsonl');
const hasFixtures = (() => {
  try {
    readFileSync(IDLE_SCREEN);
    readFileSync(WORKING_SCREEN);
    readFileSync(HOOKS);
    return true;
  } catch {
    return false;
  }
})();

interface Explained {
  state: string;
  arbiter: { authority: string; reason: string; status: { status: string; waitingFor: string | null; file: string | null } | null };
}

describe.skipIf(!tmuxAvailable || !hasFixtures)('the agent\'s status file, live', () => {
  let env: LiveEnv;
  let root = '';
  const recorders: StateRecorder[] = [];

  beforeAll(async () => {
    root = path.join(process.env.TMPDIR ?? '/tmp', `nerdr-status-${process.pid}-${Date.now()}`);
    const bin = path.join(root, 'bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(FAKE, path.join(bin, 'claude'));
    env = await startLiveEnv({ env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` } });
    await env.tmuxOk('set-environment', '-g', 'FAKE_AGENT_SCREEN', IDLE_SCREEN);
  }, 60_000);

  afterAll(async () => {
    for (const r of recorders) r.stop();
    await env?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  async function explain(win: string): Promise<Explained> {
    const r = await env.nerdr('explain', win, '--json');
    if (r.code !== 0) throw new Error(`nerdr explain: ${r.stderr}`);
    return JSON.parse(r.stdout) as Explained;
  }

  /**
   * A fake claude window whose status file follows `control` and whose screen is the file
   * `show()` names (the idle one at first); `configDir` sets CLAUDE_CONFIG_DIR.
   */
  async function start(name: string, args: string[], configDir: string | null) {
    const control = path.join(root, `${name}.status.json`);
    writeFileSync(control, JSON.stringify({ status: 'idle' }));
    await env.tmuxOk('set-environment', '-g', 'FAKE_AGENT_STATUS_CONTROL', control);
    const screen = path.join(root, `${name}.screen`);
    writeFileSync(screen, IDLE_SCREEN);
    await env.tmuxOk('set-environment', '-g', 'FAKE_AGENT_CONTROL', screen);
    if (configDir) await env.tmuxOk('set-environment', '-g', 'CLAUDE_CONFIG_DIR', configDir);
    else await env.tmuxOk('set-environment', '-g', '-u', 'CLAUDE_CONFIG_DIR');
    const r = await env.nerdrWith(['new', 'claude', '-d', '--name', name, ...args], { timeoutMs: 60_000, env: { CLAUDE_CONFIG_DIR: configDir ?? undefined } });
    expect(r.code, r.stderr).toBe(0);
    const win = r.stdout.trim();
    const pe = await paneEnv(env, win);
    const rec = new StateRecorder(win);
    recorders.push(rec);
    await rec.start(pe.NERDR_SOCKET!);
    await rec.reached('idle', 0, 20_000);
    const set = (fields: Record<string, unknown>): void => writeFileSync(control, JSON.stringify(fields));
    const show = (file: string): void => writeFileSync(screen, file);
    return { win, rec, set, show, pe };
  }

  it('without hooks the file is the source: working, blocked, working, done; explain names the file', async () => {
    const configDir = path.join(root, 'claude-config');
    const { win, rec, set } = await start('plain', ['--no-hooks'], configDir);
    let m = rec.mark;
    set({ status: 'busy' });
    await rec.reached('working', m);
    const e = await explain(win);
    expect(e.arbiter.authority).toBe('status');
    expect(e.arbiter.status).toMatchObject({ status: 'busy', waitingFor: null });
    expect(e.arbiter.status!.file).toMatch(new RegExp(`^${configDir}/sessions/\\d+\\.json$`));
    const text = await env.nerdr('explain', win);
    expect(text.stdout).toMatch(/status file: busy for .*sessions\/\d+\.json/);
    m = rec.mark;
    set({ status: 'waiting', waitingFor: 'permission prompt' });
    await rec.reached('blocked', m);
    expect((await explain(win)).arbiter.reason).toMatch(/status file: waiting \(permission prompt\)/);
    m = rec.mark;
    set({ status: 'busy' });
    await rec.reached('working', m);
    m = rec.mark;
    set({ status: 'idle' });
    await rec.reached('done', m);
    expect(rec.states(m)).toEqual(['done']);
    // the next turn's dialog is refused: idle, not done
    m = rec.mark;
    set({ status: 'busy' });
    await rec.reached('working', m);
    m = rec.mark;
    set({ status: 'waiting', waitingFor: 'permission prompt' });
    await rec.reached('blocked', m);
    m = rec.mark;
    set({ status: 'idle' });
    await rec.reached('idle', m);
    expect((await explain(win)).arbiter.reason).toMatch(/refused/);
  });

  it('with hooks, an idle and no Stop hook ends the turn as stopped (idle), by the file, before the screen rule', async () => {
    const { win, rec, set, show, pe } = await start('wired', [], null);
    // the recorded conversation starts (its id replaces the launch's), then its first prompt;
    // the screen shows the turn's work, as Claude's does (an idle screen all along would be the
    // screen rule's after 3 s, a race with this test's own steps on a loaded machine: CI, 3.2a)
    const lines = readFileSync(HOOKS, 'utf8').split('\n');
    show(WORKING_SCREEN);
    const m = rec.mark;
    for (const name of ['SessionStart', 'UserPromptSubmit']) {
      const line = lines.find((l) => l.includes(`"hook_event_name":"${name}"`))!;
      const h = await env.nerdrWith(['hook', 'claude'], { noServer: true, input: line, timeoutMs: 15_000, env: { NERDR_TAB: pe.NERDR_TAB, NERDR_SOCKET: pe.NERDR_SOCKET } });
      expect(h.code, h.stderr).toBe(0);
    }
    await rec.reached('working', m);
    set({ status: 'busy' });
    await waitFor(async () => (await explain(win)).arbiter.status?.status === 'busy', { what: 'the file read: busy' });
    // stopped: the file says idle and the prompt is drawn again
    set({ status: 'idle' });
    show(IDLE_SCREEN);
    await rec.reached('idle', m);
    const e = await explain(win);
    expect(e.arbiter.authority).toBe('status');
    expect(e.arbiter.reason).toMatch(/status file: idle for 1\.5 s with no turn end: the turn was stopped/);
    expect(e.arbiter.status!.file).toMatch(new RegExp(`^${env.home}/\\.claude/sessions/\\d+\\.json$`));
    expect(rec.states(m)).toEqual(['working', 'idle']);
  });
});
