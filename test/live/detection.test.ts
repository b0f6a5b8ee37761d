// Detection end to end (issue Detection): the bundled demo agent under the real CLI on a private
// tmux server. working → blocked → done from its screen, idle once an attached client has
// shown the window; `nerdr explain --json` names the rule and the manifest; a deny with Esc
// at the dialog ends idle (not done) with no hook at all; a user's manifest override is picked
// up while the agent runs, and an invalid one is reported and the bundled manifest is used.
//
// Every state change is recorded from the supervisor's own stream (nerdr.subscribe), so short
// states are never missed by polling and "never went done" can be asserted on the record.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv, paneEnv } from './helpers/env.js';
import { StateRecorder } from './helpers/recorder.js';

interface Explained {
  state: string;
  detection: { state: string; rule: string | null; visibleBlocker: boolean; manifest: unknown } | null;
  [k: string]: unknown;
}

async function explain(env: LiveEnv, target: string): Promise<Explained> {
  const r = await env.nerdr('explain', target, '--json');
  if (r.code !== 0) throw new Error(`nerdr explain exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Explained;
}

/** The manifest named in explain, whatever its shape: as text for matching. */
function manifestText(e: Explained): string {
  return JSON.stringify(e.detection?.manifest ?? null);
}

describe.skipIf(!tmuxAvailable)('detection: the demo agent, live', () => {
  let env: LiveEnv;
  let win = '';
  let rec: StateRecorder;
  let client: ChildProcess | null = null;

  beforeAll(async () => {
    env = await startLiveEnv();
    // --ask: every turn asks for permission; --work 2: short working phases
    const r = await env.nerdr('new', 'demo', '-d', '--name', 'det', '--', '--auto', '0', '--work', '2', '--ask');
    expect(r.code, r.stderr).toBe(0);
    win = r.stdout.trim();
    rec = new StateRecorder(win);
    const pe = await paneEnv(env, win);
    expect(pe.NERDR_SOCKET).toBeTruthy();
    await rec.start(pe.NERDR_SOCKET!);
  }, 60_000);

  afterAll(async () => {
    rec?.stop();
    if (client?.pid) client.kill('SIGKILL');
    await env?.cleanup();
  });

  it('starts unknown, then idle (the first idle is not a completion)', async () => {
    await rec.reached('idle', 0, 20_000);
    expect(rec.states()).not.toContain('done');
    expect(rec.states()).not.toContain('working');
    const e = await explain(env, win);
    expect(e.detection?.rule).toBe('prompt_idle');
  });

  it('a typed task: working → blocked at the dialog → (key 1) working → done, unseen', async () => {
    const m = rec.mark;
    await env.tmuxOk('send-keys', '-t', win, '-l', 'build it');
    await env.tmuxOk('send-keys', '-t', win, 'Enter');
    await rec.reached('working', m);
    const w = await explain(env, win);
    expect(w.detection?.rule, JSON.stringify(w.detection)).toBe('spinner_working');
    expect(manifestText(w)).toContain('demo');

    await rec.reached('blocked', m);
    const b = await explain(env, win);
    expect(b.state).toBe('blocked');
    expect(b.detection?.rule).toBe('proceed_dialog');
    expect(b.detection?.visibleBlocker).toBe(true);
    expect(manifestText(b)).toMatch(/bundled/);
    expect(manifestText(b)).toContain(path.join('manifests', 'demo.toml'));

    const m2 = rec.mark;
    await env.tmuxOk('send-keys', '-t', win, '1');
    await rec.reached('done', m2, 20_000);
    expect(rec.states(m)).toEqual(['working', 'blocked', 'working', 'done']);
    const row = (await env.lsJson()).find((a) => a.window === win)!;
    expect(row.state).toBe('done');
    expect(row.seen).toBe(false);
    // the dialog was answered on screen: its text is in the log
    expect((await env.nerdr('read', win)).stdout).toContain('Bash(rm -rf build/ && npm run build) … ok');
  });

  it('done → idle once an attached, focused client has shown the window', async () => {
    // the user's session has its own first window; the demo window is not the current one
    const before = await env.tmuxOk('display', '-p', '-t', '=user:', '#{window_id}');
    expect(before.trim()).not.toBe(win);
    // stdin stays an open pipe: at EOF on its stdin `script` types ^D into the client, which tmux
    // hands to the active pane (the session's shell, which exits)
    client = spawn('script', ['-qfc', `tmux -L ${env.server} attach -t user`, '/dev/null'], { env: env.env, stdio: ['pipe', 'ignore', 'ignore'] });
    env.track(client.pid!);
    await waitFor(async () => (await env.tmuxOk('list-clients', '-F', '#{client_control_mode}')).split('\n').includes('0'), { what: 'the attached client' });
    // attached but showing another window: still done
    expect((await env.lsJson()).find((a) => a.window === win)?.state).toBe('done');
    const m = rec.mark;
    await env.tmuxOk('select-window', '-t', win);
    await rec.reached('idle', m);
    const row = (await env.lsJson()).find((a) => a.window === win)!;
    expect(row.state).toBe('idle');
    expect(row.seen).toBe(true);
  });

  // PRODUCT BUG (src/state/arbiter.ts advance()): with the screen alone (the demo has no hooks), a
  // dialog denied with Esc goes blocked → idle, and advance() counts every idle reached after
  // working/blocked as a completion unless derive() marked it `quiet` — which only the hook
  // paths (answered/interrupted timers) do. So the deny shows `done` (unseen) instead of `idle`,
  // against state-rules.md ("Not a completion: … a dialog answered/denied").
  it('Esc at the dialog (deny): idle, not done — no hook involved', async () => {
    // look elsewhere so that a done would stay done (and be visible in the record)
    await env.tmuxOk('select-window', '-t', '=user:0');
    const m = rec.mark;
    await env.tmuxOk('send-keys', '-t', win, '-l', 'again');
    await env.tmuxOk('send-keys', '-t', win, 'Enter');
    await rec.reached('blocked', m);
    const m2 = rec.mark;
    await env.tmuxOk('send-keys', '-t', win, 'Escape');
    await waitFor(() => rec.states(m2).some((s) => s === 'idle' || s === 'done'), { timeoutMs: 15_000, what: 'the demo to settle after the deny' });
    expect((await env.nerdr('read', win)).stdout).toContain('Permission denied');
    // DONE_UNCHANGED_MS (2.5 s) is the longest a done would take to show from an idle screen:
    // watch well beyond it that the record never turns done
    await waitFor(() => rec.states(m2).includes('done'), { timeoutMs: 5000 }).catch(() => undefined);
    expect(rec.states(m2)).toEqual(['idle']);
    const e = await explain(env, win);
    expect(e.state).toBe('idle');
  });

  describe('manifest overrides in $NERDR_CONFIG_DIR/agent-detection', () => {
    let file = '';

    beforeAll(async () => {
      // whatever the deny left (idle, or done with the bug above): the user looks, so idle
      await env.tmuxOk('select-window', '-t', win);
      await waitFor(async () => (await env.lsJson()).find((a) => a.window === win)?.state === 'idle', { what: 'the demo idle before the overrides' });
      const dir = path.join(env.configDir, 'agent-detection');
      mkdirSync(dir, { recursive: true });
      file = path.join(dir, 'demo.toml');
    });

    afterAll(() => {
      if (file) rmSync(file, { force: true });
    });

    it('an override is picked up while the agent runs: the state follows the changed blocked rule', async () => {
      expect((await env.lsJson()).find((a) => a.window === win)?.state).toBe('idle');
      const bundled = readFileSync(path.join(REPO_ROOT, 'manifests', 'demo.toml'), 'utf8');
      // the blocked rule now matches the idle footer instead of the dialog
      const changed = bundled
        .replace('contains = ["do you want to proceed?"]', 'contains = ["? for shortcuts"]')
        .replace("line_regex = ['^│\\s*(?:❯\\s*)?1\\.\\s+Yes\\b']\n", '')
        .replace(/^version = ".*"$/m, 'version = "2099.1.1.1"');
      expect(changed).not.toBe(bundled);
      expect(changed).toContain('contains = ["? for shortcuts"]');
      expect(changed).not.toContain('1\\.\\s+Yes');
      const m = rec.mark;
      writeFileSync(file, changed);
      // nothing on the demo's screen changes: only the new rule can make it blocked
      await rec.reached('blocked', m, 20_000);
      const e = await explain(env, win);
      expect(e.detection?.rule).toBe('proceed_dialog');
      expect(manifestText(e)).toContain(file);
      const list = JSON.parse((await env.nerdr('manifests', 'list', '--json')).stdout) as { agent: string; source: string; path: string; problems: unknown[] }[];
      const demo = list.find((x) => x.agent === 'demo')!;
      expect(demo.path).toBe(file);
      expect(demo.problems).toEqual([]);
    });

    it('an invalid override is reported by `nerdr manifests list` and the bundled manifest is used', async () => {
      const m = rec.mark;
      writeFileSync(file, 'id = "demo"\nversion = \n[[rules]\nthis is not toml\n');
      // the running agent falls back to the bundled rules: the idle screen is idle again
      await waitFor(() => rec.states(m).some((s) => s === 'idle' || s === 'done'), { timeoutMs: 20_000, what: 'the demo back to idle under the bundled manifest' });
      const e = await explain(env, win);
      expect(e.detection?.rule).toBe('prompt_idle');
      expect(manifestText(e)).toContain(path.join('manifests', 'demo.toml'));
      expect(manifestText(e)).not.toContain(file);

      const r = await env.nerdr('manifests', 'list', '--json');
      expect(r.code, r.stderr).toBe(0);
      const list = JSON.parse(r.stdout) as { agent: string; source: string; path: string; problems: { path: string; reason: string }[] }[];
      const demo = list.find((x) => x.agent === 'demo')!;
      expect(demo.source).toBe('bundled');
      expect(demo.path).toBe(path.join(REPO_ROOT, 'manifests', 'demo.toml'));
      expect(demo.problems.map((p) => p.path)).toContain(file);
      expect(demo.problems.find((p) => p.path === file)?.reason).toBeTruthy();
      const text = await env.nerdr('manifests', 'list');
      expect(text.stdout).toContain(`problem: ${file}`);
    });
  });
});
