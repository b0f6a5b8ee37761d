// Text from agents, repositories and hosts never reaches a terminal raw (issue 26): the same
// hostile strings — a file name with OSC 0 (window title) and SGR, a walkthrough step with OSC 52
// (clipboard), a screen clear and a hyperlink, a why note with a C1 CSI, a remote host's stderr and
// rows — go through the human-readable commands, whose stdout and stderr must hold no control byte
// but \n; `--json` keeps each string exactly. The review panel is read back from its pane: the
// escape shows as `^[`, it is not obeyed.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIST_MAIN, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv, type RunResult } from './helpers/env.js';

const ESC = '\x1b';
const BEL = '\x07';
const OSC_FILE = `osc0${ESC}]0;PWNTITLE${BEL}.txt`;
const SGR_FILE = `red${ESC}[31mRED${ESC}[0m.txt`;
const STEP = `look here ${ESC}]52;c;cHduZWQ=${BEL}${ESC}[2J${ESC}]8;;http://x.invalid${ESC}\\link${ESC}]8;;${ESC}\\ done`;
const WHY = `because ${ESC}]0;WHYTITLE${BEL}\u009b31m reasons`;
const REMOTE_ERR = `no such thing ${ESC}]0;REMOTE${BEL}${ESC}[2J here`;

/** Every byte a terminal would act on: C0 but \n, DEL, and the C1 range (as characters or as raw bytes). */
function controls(s: string): string[] {
  // eslint-disable-next-line no-control-regex
  return [...s.matchAll(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g)].map((m) => `\\x${m[0].charCodeAt(0).toString(16).padStart(2, '0')} at ${m.index}`);
}

function clean(r: RunResult, what: string): void {
  expect(controls(r.stdout), `${what} stdout:\n${JSON.stringify(r.stdout)}`).toEqual([]);
  expect(controls(r.stderr), `${what} stderr:\n${JSON.stringify(r.stderr)}`).toEqual([]);
}

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const git = (repo: string, ...args: string[]): string => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: GIT_ENV });

describe.skipIf(!tmuxAvailable)('hostile text reaches no terminal raw', () => {
  let env: LiveEnv;
  let root: string;
  let repo: string;
  let win: string;
  let pane: string;

  beforeAll(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'nerdr-visible-')));
    repo = path.join(root, 'repo');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(repo, 'a.txt'), 'a\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'init');
    writeFileSync(path.join(repo, OSC_FILE), 'x\n');
    writeFileSync(path.join(repo, SGR_FILE), 'y\n');

    // a fake ssh for two fleet hosts: `rows` sends a host's agent list and stays, `err` fails
    // with a hostile line on stderr (as a remote nerdr or shell could write)
    const ssh = path.join(root, 'fake-ssh');
    const rows = JSON.stringify({ type: 'resync', agents: [{ id: 'r1', name: `remote${ESC}]0;ROW${BEL}`, agent: 'claude', state: 'idle', stateSince: 0, session: `s${ESC}[2J`, window: '@1', windowIndex: 1, cwd: `/w${ESC}]52;c;eA==${BEL}` }] });
    writeFileSync(path.join(root, 'rows.json'), rows + '\n');
    writeFileSync(path.join(root, 'err.txt'), REMOTE_ERR + '\n');
    // what `nerdr read NAME --ansi` prints on a host that lies: colours, and a clipboard write
    writeFileSync(path.join(root, 'screen.txt'), `${ESC}[31mred${ESC}[0m line\nclip${ESC}]52;c;eA==${BEL} here\n`);
    writeFileSync(
      ssh,
      `#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done\ncase "$2" in\n  rows) cat ${JSON.stringify(path.join(root, 'rows.json'))}; exec cat >/dev/null ;;\n  screen) case "$*" in *' read '*) cat ${JSON.stringify(path.join(root, 'screen.txt'))}; exit 0 ;; esac; exit 255 ;;\n  *) cat ${JSON.stringify(path.join(root, 'err.txt'))} >&2; exit 255 ;;\nesac\n`,
      { mode: 0o755 },
    );

    env = await startLiveEnv({ cols: 160, rows: 45 });
    writeFileSync(path.join(env.configDir, 'config.toml'), `[fleet]\nssh = [${JSON.stringify(ssh)}]\n[fleet.hosts.rows]\ntarget = "rows"\n[fleet.hosts.err]\ntarget = "err"\n[fleet.hosts.screen]\ntarget = "screen"\n`);
    const r = await env.nerdrWith(['new', '-d', '--name', 'hostile', '--cwd', repo, '--cmd', 'sleep 300'], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    win = r.stdout.trim();
    pane = (await env.tmuxOk('display', '-p', '-t', win, '#{pane_id}')).trim();
    const step = await env.nerdrWith(['walkthrough', '--file', 'a.txt', '--line', '1', STEP], { env: { TMUX_PANE: pane }, cwd: repo });
    expect(step.code, step.stderr).toBe(0);
    const why = await env.nerdrWith(['why', WHY], { env: { TMUX_PANE: pane }, cwd: repo });
    expect(why.code, why.stderr).toBe(0);
  }, 60_000);

  afterAll(async () => {
    await env?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('review --once: the file names, the step and the why note shown as ^[…; --json exact', async () => {
    const text = await env.nerdr('review', '--once', win);
    expect(text.code, text.stderr).toBe(0);
    clean(text, 'review --once');
    expect(text.stdout).toContain('osc0^[]0;PWNTITLE^G.txt');
    expect(text.stdout).toContain('red^[[31mRED^[[0m.txt');
    expect(text.stdout).toContain('look here ^[]52;c;cHduZWQ=^G^[[2J');
    expect(text.stdout).toContain('because ^[]0;WHYTITLE^G<9b>31m reasons');
    const json = JSON.parse((await env.nerdr('review', '--once', '--json', win)).stdout) as { files: { path: string }[]; steps: { text: string }[]; why: { text: string }[] };
    expect(json.files.map((f) => f.path).sort()).toEqual([OSC_FILE, SGR_FILE].sort());
    expect(json.steps.map((s) => s.text)).toEqual([STEP]);
    expect(json.why.map((s) => s.text)).toEqual([WHY]);
  });

  it('walkthrough --show: the step shown as ^[…; --json exact', async () => {
    const text = await env.nerdr('walkthrough', '--show', win);
    expect(text.code, text.stderr).toBe(0);
    clean(text, 'walkthrough --show');
    expect(text.stdout).toContain('1. a.txt:1  look here ^[]52;c;');
    const json = JSON.parse((await env.nerdr('walkthrough', '--show', win, '--json')).stdout) as { text: string }[];
    expect(json.map((s) => s.text)).toEqual([STEP]);
  });

  it('ls, explain, status: clean (names, titles and folders lose their control characters at the socket already)', async () => {
    await waitFor(async () => (await env.lsJson()).find((a) => a.window === win), { what: 'the agent in ls --json' });
    for (const args of [['ls'], ['explain', win], ['status']]) {
      const r = await env.nerdr(...args);
      expect(r.code, r.stderr).toBe(0);
      clean(r, args.join(' '));
    }
  });

  it('inbox, inbox ID and events: a queued message an agent wrote with escapes shown as ^[…; --json exact', async () => {
    // a demo agent kept working, so the message waits in its queue
    const made = await env.nerdr('new', 'demo', '-d', '--name', 'busy', '--', '--auto', '0', '--work', '120');
    expect(made.code, made.stderr).toBe(0);
    const busy = made.stdout.trim();
    await waitFor(async () => (await env.lsJson()).find((a) => a.window === busy && a.state === 'idle'), { what: 'busy idle' });
    await env.tmuxOk('send-keys', '-t', busy, 'work', 'Enter');
    await waitFor(async () => (await env.lsJson()).find((a) => a.window === busy && a.state === 'working'), { what: 'busy working' });
    const sent = await env.nerdr('send', busy, STEP, '--json');
    expect(sent.code, sent.stderr).toBe(0);
    const id = (JSON.parse(sent.stdout) as { id: string }).id;
    for (const args of [['inbox'], ['inbox', id]]) {
      const r = await env.nerdr(...args);
      expect(r.code, r.stderr).toBe(0);
      clean(r, args.join(' '));
      expect(r.stdout).toContain('look here ^[]52;c;');
    }
    const json = JSON.parse((await env.nerdr('inbox', '--json')).stdout) as { rows: { id: string; message: { text: string } | null }[] };
    expect(json.rows.find((r) => r.id === id)?.message?.text).toBe(STEP);
    const ev = await env.nerdrWith(['events', '--until-stdin-ends'], { input: '' });
    clean(ev, 'events');
    await env.nerdr('send', '--cancel', id);
  });

  it('fleet ls and ls --fleet: a remote host\'s stderr and rows shown as ^[…; --json exact', async () => {
    const answer = async () => JSON.parse((await env.nerdr('fleet', 'ls', '--json')).stdout) as { name: string; state: string; error: { message: string } | null; agents: unknown[] }[];
    await waitFor(async () => {
      const a = await answer();
      const err = a.find((h) => h.name === 'err');
      const rows = a.find((h) => h.name === 'rows');
      return err?.error?.message.includes(REMOTE_ERR) && rows?.state === 'connected' && rows.agents.length === 1;
    }, { what: 'the err host failed with its stderr, the rows host connected', timeoutMs: 20_000 });
    const fleet = await env.nerdr('fleet', 'ls');
    clean(fleet, 'fleet ls');
    expect(fleet.stdout).toContain('no such thing ^[]0;REMOTE^G^[[2J here');
    const ls = await env.nerdr('ls', '--fleet');
    clean(ls, 'ls --fleet');
    expect(ls.stdout).toContain('remote');
    expect(ls.stderr).toContain('no such thing ^[]0;REMOTE^G^[[2J here');
    const status = await env.nerdr('status', '--fleet');
    clean(status, 'status --fleet');
  });

  it("read HOST:NAME --ansi: the other host's colours kept, every other sequence shown as ^[…", async () => {
    const r = await env.nerdr('read', 'screen:agent', '--ansi');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${ESC}[31mred${ESC}[0m line`);
    expect(r.stdout).toContain('clip^[]52;c;eA==^G here');
    expect(r.stdout).not.toContain(`${ESC}]`);
  });

  it('the review panel draws the file names with their escapes visible, not obeyed', async () => {
    await env.tmuxOk('select-window', '-t', win);
    const runner = `const { main } = await import(${JSON.stringify(DIST_MAIN)}); await main(['node', 'nerdr', '-L', ${JSON.stringify(env.server)}, 'review', ${JSON.stringify(win)}]);`;
    const p = (await env.tmuxOk('split-window', '-h', '-l', '60%', '-t', pane, '-P', '-F', '#{pane_id}', process.execPath, '--input-type=module', '-e', runner)).trim();
    const screen = await waitFor(async () => {
      const s = await env.tmuxOk('capture-pane', '-p', '-t', p);
      return s.includes('PWNTITLE') && s.includes('RED') && s;
    }, { what: 'the panel listing the hostile files', timeoutMs: 20_000 });
    expect(screen).toContain('osc0^[]0;PWNTITLE^G.txt');
    expect(screen).toContain('red^[[31mRED^[[0m.txt');
    expect((await env.tmuxOk('display', '-p', '-t', p, '#{pane_title}')).trim()).not.toContain('PWNTITLE');
  });
});
