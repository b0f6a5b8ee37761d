// Live: the agent limits have no side door. From inside an agent window, with its exact
// environment, every command that acts (the CLI's, the dashboard's keys, worktree rm, supervisor
// stop/restart, a fleet HOST:NAME target) is refused for a window that agent did not start, and
// changes nothing; `nerdr new` stops at [agents] max_helpers and max_depth. docs/orchestration.md.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVER, driverCmd } from './helpers/driver.js';
import { git, makeRepo } from './helpers/git-repo.js';
import { paneEnv, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';
import { dashRunner } from './helpers/dash.js';

interface Step {
  args: string[];
  code: number;
  stdout: string;
  stderr: string;
}

describe.skipIf(!tmuxAvailable)('agent limits: no side door (live)', () => {
  let env: LiveEnv;
  let root: string;
  let repo: string;
  let driver: string;
  const config = (text: string) => writeFileSync(path.join(env.configDir, 'config.toml'), text);
  const names = async () => (await env.lsJson()).map((r) => r.name);

  beforeAll(async () => {
    env = await startLiveEnv({ cols: 140, rows: 40 });
    ({ root, repo } = makeRepo('nerdr-limits-', '.env\n'));
    driver = path.join(root, 'driver.cjs');
    writeFileSync(driver, DRIVER);
  });
  afterAll(async () => {
    await env?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /** The window program that runs these nerdr commands from inside its pane, writing the answers to `<name>.json`. */
  const driverIn = (name: string, steps: string[][]): string => driverCmd(driver, path.join(root, `${name}.json`), steps);
  const answers = (name: string): Step[] => JSON.parse(readFileSync(path.join(root, `${name}.json`), 'utf8')) as Step[];

  /** A window a person starts in the repository, whose program runs the steps from inside it; what each answered. */
  async function agentRuns(name: string, steps: string[][]): Promise<Step[]> {
    const out = path.join(root, `${name}.json`);
    const cmd = driverIn(name, steps);
    const r = await env.nerdrWith(['new', '-d', '--name', name, '--cmd', cmd], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    await waitFor(() => existsSync(out), { what: `${name}'s commands to finish`, timeoutMs: 60_000 });
    return answers(name);
  }

  it('every acting command of the CLI is refused for a window the agent did not start, naming the setting, and changes nothing', async () => {
    // a fleet host that is never reached: ssh is `false`
    config('[agents]\nmax_helpers = 1\nmax_depth = 1\n\n[fleet]\nssh = ["false"]\n\n[fleet.hosts.far]\ntarget = "nowhere"\n');
    const sib = await env.nerdrWith(['new', '-d', '--name', 'sib', '--worktree', 'feat/sib', '--cmd', 'exec sleep 300'], { cwd: repo });
    expect(sib.code, sib.stderr).toBe(0);
    const sibTree = path.join(root, 'repo.worktrees');
    await waitFor(async () => (await names()).includes('sib'), { what: 'sib in nerdr ls' });
    const pid = await env.supervisorPid();
    expect(pid).not.toBeNull();

    const steps = await agentRuns('boss', [
      ['send', 'sib', 'not yours'],
      ['stop', 'sib'],
      ['focus', 'sib'],
      ['worktree', 'rm', 'feat/sib'],
      ['worktree', 'rm', 'feat/sib', '--force'],
      ['supervisor', 'stop'],
      ['supervisor', 'restart'],
      ['restore'],
      ['stop', 'far:sib'],
      // its helper tries one of its own: two deep, past max_depth = 1
      ['new', '-d', '--name', 'mine', '--cmd', driverIn('mine', [['new', '-d', '--name', 'too-deep', '--cmd', 'exec sleep 300']])],
      ['new', '-d', '--name', 'one-too-many', '--cmd', 'exec sleep 300'],
    ]);
    const by = (...args: string[]) => steps.find((s) => s.args.join(' ') === args.join(' '))!;
    for (const s of steps.slice(0, 9)) {
      expect(s.code, `${s.args.join(' ')}: ${s.stdout}${s.stderr}`).toBe(1);
      expect(s.stderr, s.args.join(' ')).toMatch(/agent window/);
      expect(s.stderr, s.args.join(' ')).toMatch(/\[agents\] control = "all"/);
    }
    for (const s of [by('worktree', 'rm', 'feat/sib'), by('worktree', 'rm', 'feat/sib', '--force')]) {
      expect(s.stderr).toMatch(/boss \(@\d+\) is an agent window: it may remove only worktrees whose agent windows it started \(or theirs\), and sib \(@\d+\) runs in /);
      expect(s.stderr).not.toMatch(/--force/);
    }
    expect(by('supervisor', 'stop').stderr).toMatch(/it may not stop or restart the supervisor/);
    expect(by('supervisor', 'restart').stderr).toMatch(/it may not stop or restart the supervisor/);
    expect(by('restore').stderr).toMatch(/it may not restore/);
    expect(steps[9]!.code, steps[9]!.stderr).toBe(0);
    await waitFor(() => existsSync(path.join(root, 'mine.json')), { what: "mine's helper to be asked for" });
    const [deep] = answers('mine');
    expect(deep!.code).toBe(1);
    expect(deep!.stderr).toMatch(/mine \(@\d+\) is an agent window 1 below a person's: a helper it starts would be 2 deep, and \[agents\] max_depth is 1/);
    const past = by('new', '-d', '--name', 'one-too-many', '--cmd', 'exec sleep 300');
    expect(past.code).toBe(1);
    expect(past.stderr).toMatch(/boss \(@\d+\) has 1 helper window running .*\[agents\] max_helpers is 1/);
    expect(past.stderr).toMatch(/fix: .*raise \[agents\] max_helpers in /);

    // nothing changed: sib runs in its worktree, the same supervisor watches, no extra helper
    expect(await names()).toEqual(expect.arrayContaining(['sib', 'boss', 'mine']));
    expect(await names()).not.toContain('one-too-many');
    expect(await names()).not.toContain('too-deep');
    expect(existsSync(sibTree) && git(repo, 'worktree', 'list')).toMatch(/feat\/sib/);
    expect(await env.supervisorPid()).toBe(pid);
  });

  it("the dashboard run with an agent window's environment cannot send to, stop or jump to a window that agent did not start", async () => {
    const boss = (await env.lsJson()).find((r) => r.name === 'boss')!;
    const secret = (await paneEnv(env, boss.window)).NERDR_TAB;
    expect(secret).toBeTruthy();
    const win = (await env.tmuxOk('new-window', '-d', '-P', '-F', '#{window_id}', '-n', 'dash', '-e', `NERDR_TAB=${secret}`, process.execPath, '--input-type=module', '-e', dashRunner(env.server))).trim();
    const capture = async (): Promise<string> => env.tmuxOk('capture-pane', '-p', '-t', win);
    // a not-yet throws with the screen, which the timeout's message shows (as in dash.test.ts)
    const shows = (text: string, what: string) =>
      waitFor(async () => {
        const s = await capture();
        if (s.includes(text)) return true;
        throw new Error(`screen:\n${s.replace(/\n+$/, '')}`);
      }, { what, timeoutMs: 20_000 });
    // it opens on the inbox; Tab shows the agent list
    await shows(' · inbox ', 'the dashboard to open on its inbox');
    await env.tmuxOk('send-keys', '-t', win, 'Tab');
    await shows(' sib', 'the dashboard to list sib');
    // move the selection to sib (its name labels the preview): to the top, then down a row at a time
    const label = async () => /┌─ (\S+) · /.exec(await capture())?.[1] ?? '';
    await shows(' · ', 'the preview');
    for (let i = 0; i < 3; i++) await env.tmuxOk('send-keys', '-t', win, 'k');
    for (let i = 0; i < 3 && (await label()) !== 'sib'; i++) {
      const was = await label();
      await env.tmuxOk('send-keys', '-t', win, 'j');
      await waitFor(async () => (await label()) !== was, { what: `the selection to move from ${was}` });
    }
    await shows(' sib · ', 'the preview of sib');

    await env.tmuxOk('send-keys', '-t', win, 'x');
    await env.tmuxOk('send-keys', '-t', win, 'y');
    await shows('not stopped: ', 'the stop to be refused');
    expect(await capture()).toMatch(/agent window/);

    await env.tmuxOk('send-keys', '-t', win, 's');
    // typed once the box shows, as a person would: blessed's textbox takes keys from the tick
    // after it opens, and keys that arrive with the 's' went to the list (CI lost the text once)
    await shows(' send to sib ', 'the message box');
    await env.tmuxOk('send-keys', '-t', win, '-l', 'from the dash');
    await env.tmuxOk('send-keys', '-t', win, 'Enter');
    await shows('not sent: ', 'the send to be refused');

    await env.tmuxOk('send-keys', '-t', win, 'Enter');
    await shows('may switch only to the windows it started', 'the jump to be refused');

    const sib = (await env.lsJson()).find((r) => r.name === 'sib');
    expect(sib).toBeDefined();
    expect(sib!.queue ?? 0).toBe(0);
    await env.tmuxOk('send-keys', '-t', win, 'q');
  });
});
