// Live: `nerdr review` in a pane of a private tmux server, beside two demo agents in two real
// git repositories. It follows the session's window, updates when a file changes, shows a
// window's why notes and walkthrough (a step scrolls the diff to its line), opens the editor as
// argv in a new window, fits a narrower pane and quits on q. Plus `nerdr review --once --json`.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIST_MAIN, REPO_ROOT, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';

// Runs `nerdr -L <server> review` through the compiled CLI; registers review itself should
// main.ts not (yet) list it.
function runner(server: string): string {
  const review = path.join(REPO_ROOT, 'dist', 'cli', 'review.js');
  return `
const { buildProgram } = await import(${JSON.stringify(DIST_MAIN)});
const argv = ['node', 'nerdr', '-L', ${JSON.stringify(server)}, 'review'];
const program = await buildProgram(argv.slice(2));
if (!program.commands.some((c) => c.name() === 'review')) (await import(${JSON.stringify(review)})).register(program);
try { await program.parseAsync(argv); } catch (e) { console.error(e?.render?.() ?? e); await new Promise((r) => setTimeout(r, 60000)); }
process.exit(process.exitCode ?? 0);
`;
}

function fail(screen: string): never {
  throw new Error(`screen:\n${screen.replace(/\n+$/, '')}`);
}

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const git = (repo: string, ...args: string[]): string => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: GIT_ENV });

function makeRepo(dir: string, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  for (const [f, text] of Object.entries(files)) writeFileSync(path.join(dir, f), text);
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'init');
}

describe.skipIf(!tmuxAvailable)('nerdr review (live)', () => {
  let env: LiveEnv;
  let root: string;
  let repoA: string;
  let repoB: string;
  beforeAll(async () => {
    env = await startLiveEnv({ cols: 160, rows: 45 });
    root = mkdtempSync(path.join(os.tmpdir(), 'nerdr-review-live-'));
    repoA = path.join(root, 'alpha-repo');
    repoB = path.join(root, 'beta-repo');
    makeRepo(repoA, { 'a.txt': 'a\n' });
    makeRepo(repoB, { 'b.txt': Array.from({ length: 80 }, (_, i) => `b line ${i + 1}`).join('\n') + '\n' });
    writeFileSync(path.join(repoA, 'a.txt'), 'a\nalpha change\n');
    writeFileSync(path.join(repoB, 'b.txt'), Array.from({ length: 80 }, (_, i) => (i === 59 ? 'B LINE SIXTY' : `b line ${i + 1}`)).join('\n') + '\n');
  });
  afterAll(async () => {
    await env?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('follows the active window, updates on file changes and notes, opens the editor, resizes, quits', async () => {
    const a = await env.nerdr('new', 'demo', '-d', '--name', 'alpha', '--cwd', repoA, '--', '--auto', '0');
    const b = await env.nerdr('new', 'demo', '-d', '--name', 'beta', '--cwd', repoB, '--', '--auto', '0');
    expect(a.stderr + b.stderr).toBe('');
    const rows = await waitFor(async () => {
      const r = await env.lsJson();
      return r.length === 2 && r;
    }, { what: 'two agents in nerdr ls' });
    const alpha = rows.find((r) => r.name === 'alpha')!;
    const beta = rows.find((r) => r.name === 'beta')!;

    await env.tmuxOk('select-window', '-t', `user:${alpha.window}`);
    const pane = (
      await env.tmuxOk('split-window', '-h', '-l', '40%', '-t', alpha.pane, '-P', '-F', '#{pane_id}', 'env', 'EDITOR=tail -f', process.execPath, '--input-type=module', '-e', runner(env.server))
    ).trim();
    const capture = (): Promise<string> => env.tmuxOk('capture-pane', '-p', '-t', pane);

    // the window the session shows: alpha, its repository's change and its diff
    await waitFor(async () => {
      const s = await capture();
      return (s.includes('alpha · demo') && s.includes('M a.txt') && s.includes('+alpha change') && s.includes('q quit')) || fail(s);
    }, { what: "the panel to show alpha's change", timeoutMs: 20_000 });

    // the user switches windows: the panel follows (the supervisor's event, no polling)
    await env.tmuxOk('select-window', '-t', `user:${beta.window}`);
    await waitFor(async () => {
      const s = await capture();
      return (s.includes('beta · demo') && s.includes('M b.txt') && s.includes('+B LINE SIXTY') && !s.includes('a.txt')) || fail(s);
    }, { what: 'the panel to follow the switch to beta' });

    // a file appears in beta's checkout: chokidar, debounced
    writeFileSync(path.join(repoB, 'fresh.txt'), 'one\ntwo\nthree\n');
    await waitFor(async () => {
      const s = await capture();
      return /\? fresh\.txt\s+\+3 -0/.test(s) || fail(s);
    }, { what: 'the new untracked file with its line count' });

    // a why note and a walkthrough step through the real CLI, from beta's pane
    const why = await env.nerdrWith(['why', 'kept the old name for callers'], { env: { TMUX_PANE: beta.pane }, cwd: repoB });
    expect(why.stderr).toBe('');
    const step = await env.nerdrWith(['walkthrough', '--file', 'b.txt', '--line', '60', 'the renamed line'], { env: { TMUX_PANE: beta.pane }, cwd: repoB });
    expect(step.stderr).toBe('');
    expect(step.code).toBe(0);
    await waitFor(async () => {
      const s = await capture();
      return (s.includes('walkthrough (1)') && s.includes('1. b.txt:60 the renamed line') && s.includes('· kept the old name')) || fail(s);
    }, { what: 'the walkthrough step and the why note' });

    // tab: the notes; the step shows the diff at its line, drawn reversed
    await env.tmuxOk('send-keys', '-t', pane, 'Tab');
    await waitFor(async () => {
      const s = await capture();
      return (s.includes('step 1 · b.txt:60') && s.includes('+B LINE SIXTY')) || fail(s);
    }, { what: "the step's diff" });
    const ansi = await env.tmuxOk('capture-pane', '-p', '-e', '-t', pane);
    expect(ansi).toMatch(/\x1b\[[0-9;]*7[0-9;]*m[^\n]*\+B LINE SIXTY/);

    // e: the step's file in $EDITOR, a new window running it as argv
    await env.tmuxOk('send-keys', '-t', pane, 'e');
    const editor = await waitFor(async () => {
      const w = await env.tmuxOk('list-panes', '-s', '-t', 'user', '-F', '#{window_name}\t#{pane_current_command}\t#{pane_start_command}');
      return w.split('\n').find((l) => l.startsWith('b.txt\t')) ?? false;
    }, { what: 'a window with the editor on b.txt' });
    expect(editor).toContain(path.join(repoB, 'b.txt'));
    expect(editor).toMatch(/tail/);
    // the editor's window is the session's now; the panel stays on beta
    expect(await capture()).toContain('beta · demo');

    // a narrower pane: redrawn to its width
    await env.tmuxOk('resize-pane', '-t', pane, '-x', '36');
    await waitFor(async () => {
      const s = await capture();
      const lines = s.split('\n');
      return (lines.some((l) => /^└─+┘$/.test(l) && [...l].length === 36) && s.includes('beta · demo')) || fail(s);
    }, { what: 'the panel redrawn at 36 columns' });

    // q: the panel ends and its pane closes
    await env.tmuxOk('send-keys', '-t', pane, 'q');
    await waitFor(async () => !(await env.tmuxOk('list-panes', '-a', '-F', '#{pane_id}')).split('\n').includes(pane) || fail(await capture()), { what: 'the panel pane to close after q' });
  });

  it('steps on /dev/zero and on FIFOs: refused at once, the panel stays small, r refreshes and q quits', async () => {
    const repoC = path.join(root, 'gamma-repo');
    makeRepo(repoC, { 'c.txt': 'c\n' });
    execFileSync('mkfifo', [path.join(repoC, 'pipe-one'), path.join(repoC, 'pipe-two')]);
    const made = await env.nerdr('new', 'demo', '-d', '--name', 'gamma', '--cwd', repoC, '--', '--auto', '0');
    expect(made.code, made.stderr).toBe(0);
    const gamma = await waitFor(async () => (await env.lsJson()).find((r) => r.name === 'gamma'), { what: 'gamma in nerdr ls' });
    for (const [file, text] of [['/dev/zero', 'zeros'], ['pipe-one', 'first fifo'], ['pipe-two', 'second fifo']]) {
      const step = await env.nerdrWith(['walkthrough', '--file', file!, '--line', '1', text!], { env: { TMUX_PANE: gamma.pane }, cwd: repoC });
      expect(step.code, step.stderr).toBe(0);
    }
    await env.tmuxOk('select-window', '-t', `user:${gamma.window}`);
    const pane = (
      await env.tmuxOk('split-window', '-h', '-l', '40%', '-t', gamma.pane, '-P', '-F', '#{pane_id}\t#{pane_pid}', process.execPath, '--input-type=module', '-e', runner(env.server))
    ).trim();
    const [id, pid] = pane.split('\t') as [string, string];
    const capture = (): Promise<string> => env.tmuxOk('capture-pane', '-p', '-t', id);
    const rssMb = (): number => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    await waitFor(async () => {
      const sc = await capture();
      return (sc.includes('gamma · demo') && sc.includes('walkthrough (3)')) || fail(sc);
    }, { what: 'the panel with the three steps', timeoutMs: 20_000 });
    // each step in turn (tab: the notes, j: the next step): its refusal, said at once (a FIFO is
    // never opened to wait for a writer)
    await env.tmuxOk('send-keys', '-t', id, 'Tab');
    await waitFor(async () => (await capture()).includes("outside the window's folder") || fail(await capture()), { what: '/dev/zero refused' });
    await env.tmuxOk('send-keys', '-t', id, 'j');
    await waitFor(async () => /a FIFO, not a regular file/.test(await capture()) || fail(await capture()), { what: 'the first FIFO refused' });
    await env.tmuxOk('send-keys', '-t', id, 'j');
    await waitFor(async () => /step 3 .*pipe-two/.test(await capture()) && /a FIFO, not a regular file/.test(await capture()) || fail(await capture()), { what: 'the second FIFO refused' });
    // r: a refresh that ends (the panel is not stuck in an open())
    await env.tmuxOk('send-keys', '-t', id, 'r');
    await waitFor(async () => !(await capture()).includes('refreshing') || fail(await capture()), { what: 'the refresh to end', timeoutMs: 10_000 });
    // before the fix /dev/zero took it past 1.5 GB: it stays a panel's size
    expect(rssMb()).toBeLessThan(200);
    await env.tmuxOk('send-keys', '-t', id, 'q');
    await waitFor(async () => !(await env.tmuxOk('list-panes', '-a', '-F', '#{pane_id}')).split('\n').includes(id) || fail(await capture()), { what: 'the panel pane to close after q' });
  });

  it('--once --json prints the same data for an agent, a folder, and says when there is no repository', async () => {
    const r = await env.nerdr('review', '--once', '--json', 'alpha');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const d = JSON.parse(r.stdout) as { agent: { name: string }; repo: string; branch: string; files: { path: string; kind: string; added: number; removed: number }[] };
    expect(d.agent.name).toBe('alpha');
    expect(d.repo).toBe(repoA);
    expect(d.branch).toBe('main');
    expect(d.files).toEqual([expect.objectContaining({ path: 'a.txt', kind: 'unstaged', added: 1, removed: 0 })]);

    git(repoB, 'add', 'fresh.txt');
    const f = await env.nerdrWith(['review', '--once', '--json', '.'], { cwd: repoB });
    const fd = JSON.parse(f.stdout) as { window: string; files: { path: string; kind: string }[] };
    expect(fd.files.map((x) => `${x.kind}:${x.path}`)).toEqual(['staged:fresh.txt', 'unstaged:b.txt']);

    const none = await env.nerdrWith(['review', '--once', '--json', root], {});
    expect(JSON.parse(none.stdout).problem).toBe(`no git repository at ${root}`);

    const text = await env.nerdr('review', '--once', 'beta');
    expect(text.stdout).toMatch(/window {2}@\d+ beta \(demo, \w+\)/);
    expect(text.stdout).toContain('1. b.txt:60  the renamed line');

    // a window made in a worktree: its folder, branch and base, a commit ahead of it
    const wt = await env.nerdrWith(['new', 'demo', '-d', '--name', 'wt', '--worktree', 'feat/rev', '--', '--auto', '0'], { cwd: repoA });
    expect(wt.stderr).toBe('');
    const wtRow = await waitFor(async () => (await env.lsJson()).find((r) => r.name === 'wt' && typeof r.worktree === 'string'), { what: 'the worktree window in nerdr ls' });
    const wtDir = wtRow.worktree as string;
    writeFileSync(path.join(wtDir, 'w.txt'), 'w\n');
    git(wtDir, 'add', 'w.txt');
    git(wtDir, 'commit', '-qm', 'w');
    writeFileSync(path.join(wtDir, 'a.txt'), 'a\nin the worktree\n');
    const w = JSON.parse((await env.nerdr('review', '--once', '--json', 'wt')).stdout) as { folder: string; branch: string; base: string; ahead: number; behind: number; files: { path: string; kind: string }[] };
    expect(w).toMatchObject({ folder: wtDir, branch: 'feat/rev', base: 'main', ahead: 1, behind: 0 });
    expect(w.files.map((x) => `${x.kind}:${x.path}`)).toEqual(['unstaged:a.txt', 'committed:w.txt']);

    const bad = await env.nerdr('review', '--once', 'nosuch');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('no agent "nosuch"');
  });

  it("review comment: one queued message for the window's agent, path:line with the line quoted, typed in when it waits", async () => {
    const made = await env.nerdr('new', 'demo', '-d', '--name', 'commented', '--cwd', repoB, '--', '--auto', '0', '--work', '1');
    expect(made.code, made.stderr).toBe(0);
    const win = made.stdout.trim();
    const r = await env.nerdr('review', 'comment', 'commented', '--file', 'b.txt', '--line', '60', '--json', 'why', 'upper', 'case?');
    expect(r.code, r.stderr).toBe(0);
    const got = JSON.parse(r.stdout) as { id: string; message: string };
    expect(got.message).toBe('b.txt:60: why upper case?\n  60 | B LINE SIXTY');
    expect((await env.nerdr('send', '--status', got.id)).code).toBe(0);
    await waitFor(async () => (await env.tmuxOk('capture-pane', '-p', '-t', win)).includes('> b.txt:60: why upper case?'), { what: 'the comment typed in', timeoutMs: 20_000 });
    for (const f of ['../../etc/passwd', '/etc/passwd']) {
      const outside = await env.nerdr('review', 'comment', 'commented', '--file', f, '--line', '1', 'x');
      expect(outside.code).toBe(1);
      expect(outside.stderr).toContain("outside the window's folder");
    }
  });
});
