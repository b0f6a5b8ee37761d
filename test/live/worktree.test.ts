// Worktrees end to end: `nerdr new --worktree` in a real git repository (a temporary one), the
// window's options and `ls` fields, [worktrees] copy and setup (visible, a failure kept open),
// `nerdr worktree ls | rm | merge` and their refusals, a branch name full of tmux and shell syntax,
// a restarted supervisor and `nerdr restore`.
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidAlive, startLiveEnv, tmuxAvailable, waitFor, type AgentRowLike, type LiveEnv } from './helpers/env.js';
import { git, makeRepo } from './helpers/git-repo.js';

const HOSTILE = `x#{window_id}#S;'q"$(touch\${IFS}pwned)`;

describe.skipIf(!tmuxAvailable)('worktrees', () => {
  let env: LiveEnv;
  let root: string;
  let repo: string;
  let wtRoot: string;

  const nerdrIn = (cwd: string, ...args: string[]) => env.nerdrWith(args, { cwd });
  const row = async (name: string): Promise<AgentRowLike | undefined> => (await env.lsJson()).find((r) => r.name === name);
  const config = (text: string) => writeFileSync(path.join(env.configDir, 'config.toml'), text);
  // tmux before 3.3 keeps a joined line's trailing blanks (-J): lines are compared without them
  const screen = async (win: string) => (await env.tmuxOk('capture-pane', '-p', '-J', '-t', win)).replace(/[ \t]+$/gm, '');

  beforeAll(async () => {
    env = await startLiveEnv();
    ({ root, repo, wtRoot } = makeRepo('nerdr-wt-', '.env\n'));
  });

  afterAll(async () => {
    await env?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('new --worktree makes the worktree beside the repository, names the window after the branch and tags it', async () => {
    const r = await nerdrIn(repo, 'new', '-d', '--worktree', 'feat/one', '--cmd', 'exec sleep 300');
    expect(r.code, r.stderr).toBe(0);
    const win = r.stdout.trim();
    const where = path.join(wtRoot, 'feat-one');
    expect(git(where, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('feat/one');
    const a = await waitFor(() => row('feat/one'), { what: 'the feat/one window in ls' });
    expect(a).toMatchObject({ window: win, cwd: where, worktree: where, branch: 'feat/one', base: 'main' });
    expect((await env.tmuxOk('display', '-p', '-t', win, '#{pane_current_path}')).trim()).toBe(where);
    expect((await env.tmuxOk('show-options', '-wv', '-t', win, '@nerdr_worktree')).trim()).toBe(where);
    expect((await env.tmuxOk('show-options', '-wv', '-t', win, '@nerdr_base')).trim()).toBe('main');
    // a window without a worktree says so with nulls
    const plain = await nerdrIn(repo, 'new', '-d', '--name', 'plain', '--cmd', 'exec sleep 300');
    expect(plain.code, plain.stderr).toBe(0);
    expect(await waitFor(() => row('plain'))).toMatchObject({ worktree: null, branch: null, base: null });
    const ls = (await env.nerdr('ls')).stdout.split('\n');
    expect(ls[0]).toMatch(/CONVERSATION\s+BRANCH\s+CWD$/);
    expect(ls.find((l) => l.startsWith('feat/one'))).toMatch(/\sfeat\/one\s+\S*feat-one$/);
    expect(ls.find((l) => l.startsWith('plain'))).toMatch(/\s-\s+\S*repo$/);
  });

  it('a branch name full of #{…}, ;, quotes and $(…) reaches tmux and the folder literally, never run', async () => {
    const r = await nerdrIn(repo, 'new', '-d', '--worktree', HOSTILE, '--base', 'main', '--cmd', 'exec sleep 300');
    expect(r.code, r.stderr).toBe(0);
    const win = r.stdout.trim();
    const where = path.join(wtRoot, HOSTILE);
    expect(existsSync(where)).toBe(true);
    expect(git(where, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(HOSTILE);
    const a = await waitFor(() => row(HOSTILE), { what: 'the window named after the hostile branch' });
    expect(a).toMatchObject({ window: win, worktree: where, branch: HOSTILE, base: 'main', cwd: where });
    expect((await env.tmuxOk('display', '-p', '-t', win, '#{window_name}')).trim()).toBe(HOSTILE);
    expect((await env.tmuxOk('display', '-p', '-t', win, '#{pane_current_path}')).trim()).toBe(where);
    expect((await env.tmuxOk('show-options', '-wv', '-t', win, '@nerdr_branch')).trim()).toBe(HOSTILE);
    for (const d of [repo, root, wtRoot, where, env.home, process.cwd()]) expect(existsSync(path.join(d, 'pwned')), d).toBe(false);
  });

  it('a branch name git refuses is reported in git\'s words, and no window is made', async () => {
    const before = (await env.lsJson()).length;
    const r = await nerdrIn(repo, 'new', '-d', '--worktree', 'bad..name', '--cmd', 'exec sleep 300');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/git refuses the branch name "bad\.\.name": .*is not a valid branch name/);
    expect(r.stderr).toMatch(/fix: /);
    const outside = await env.nerdrWith(['new', '-d', '--worktree', 'x', '--cmd', 'exec sleep 300'], { cwd: env.home });
    expect(outside.code).toBe(1);
    expect(outside.stderr).toMatch(/is not in a git repository/);
    const taken = await nerdrIn(repo, 'new', '-d', '--worktree', 'main', '--cmd', 'exec sleep 300');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(`the branch main is checked out at ${repo} already`);
    const base = await nerdrIn(repo, 'new', '-d', '--worktree', 'y', '--base', 'no-such-ref', '--cmd', 'exec sleep 300');
    expect(base.stderr).toMatch(/--base no-such-ref is not a commit in/);
    // a --cmd program that is not there: refused before any worktree or branch is made
    const missing = await nerdrIn(repo, 'new', '-d', '--worktree', 'never-made', '--cmd', 'no-such-program-xyz --flag');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/`no-such-program-xyz` is not installed here .*no window was made/);
    expect(existsSync(path.join(wtRoot, 'never-made'))).toBe(false);
    expect(git(repo, 'branch', '--list', 'never-made').trim()).toBe('');
    expect((await env.lsJson()).length).toBe(before);
  });

  it('an existing branch is checked out as it is; asking again opens a second window in the same worktree', async () => {
    git(repo, 'branch', 'existing');
    const r = await nerdrIn(repo, 'new', '-d', '--worktree', 'existing', '--base', 'main', '--cmd', 'exec sleep 300');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/the branch existing exists: checked out as it is/);
    const again = await nerdrIn(repo, 'new', '-d', '--worktree', 'existing', '--name', 'second', '--cmd', 'exec sleep 300');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/exists: the agent runs in it as it is/);
    expect(await waitFor(() => row('second'))).toMatchObject({ worktree: path.join(wtRoot, 'existing'), branch: 'existing', base: 'main' });
    for (const w of [r.stdout.trim(), again.stdout.trim()]) await env.tmuxOk('kill-window', '-t', w);
    await waitFor(async () => !(await row('second')) && !(await row('existing')), { what: 'the two windows to be gone' });
    const rm = await env.nerdrWith(['worktree', 'rm', 'existing', '--delete-branch'], { cwd: repo });
    expect(rm.code, rm.stderr).toBe(0);
  });

  it('[worktrees] copy brings untracked files over; setup runs visibly in the window before the agent', async () => {
    config('[worktrees]\ncopy = [".env", "missing.txt"]\nsetup = "echo SETUP-SAYS-HI; touch setup-done"\n');
    const r = await nerdrIn(repo, 'new', '-d', '--worktree', 'with-setup', '--cmd', 'exec sleep 300');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/missing\.txt is not in/);
    const where = path.join(wtRoot, 'with-setup');
    expect(readFileSync(path.join(where, '.env'), 'utf8')).toBe('SECRET=1\n');
    const win = r.stdout.trim();
    await waitFor(() => existsSync(path.join(where, 'setup-done')), { what: 'the setup to run' });
    await waitFor(async () => (await env.tmuxOk('display', '-p', '-t', win, '#{pane_current_command}')).trim() === 'sleep', { what: 'the agent to start after the setup' });
    const text = await screen(win);
    expect(text).toMatch(/nerdr: setup: echo SETUP-SAYS-HI/);
    expect(text).toMatch(/^SETUP-SAYS-HI$/m);
  });

  it('a failing setup leaves the window open with its output and says so; the agent is not started', async () => {
    config('[worktrees]\nsetup = "echo BROKEN-SETUP; exit 3"\n');
    const r = await nerdrIn(repo, 'new', '-d', '--worktree', 'bad-setup', '--cmd', 'exec sleep 300');
    expect(r.code, r.stderr).toBe(0);
    const win = r.stdout.trim();
    try {
      // the status can follow the exit by a scan (tmux may list the pane dead before its status);
      // the exit guard may hold the pane up to 6 s (EXIT_GUARD_WAIT_S)
      let last: unknown = null;
      const a = await waitFor(async () => {
        const x = await row('bad-setup');
        last = x;
        // (an empty status is no status yet: waitFor takes '' as a value)
        return x?.state === 'exited' && x.exitStatus ? x : null;
      }, { what: 'the window to show the setup exited, with its status', timeoutMs: 20_000 }).catch((err: Error) => {
        throw new Error(`${err.message}; its row: ${JSON.stringify(last)}`);
      });
      expect(a.exitStatus).toBe('3');
      const text = await screen(win);
      expect(text).toMatch(/^BROKEN-SETUP$/m);
      expect(text).toMatch(/nerdr: the setup failed \(exit 3\), so the agent was not started/);
      expect(text).toMatch(/--worktree bad-setup/);
    } finally {
      config('');
      await env.tmuxOk('kill-window', '-t', win);
    }
  });

  it('worktree ls shows each worktree nerdr made: window, changed files, ahead/behind, last commit', async () => {
    const where = path.join(wtRoot, 'feat-one');
    writeFileSync(path.join(where, 'done.txt'), 'a\nb\n');
    git(where, 'add', 'done.txt');
    git(where, 'commit', '-qm', 'the agent did a thing');
    writeFileSync(path.join(where, 'README'), 'one\ntwo\n');
    writeFileSync(path.join(where, 'scratch.txt'), 'x\n');
    const r = await env.nerdrWith(['worktree', 'ls', '--json'], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    const list = JSON.parse(r.stdout) as { name: string; path: string; branch: string; base: string; window: { name: string } | null; changed: number; ahead: number; behind: number; lastCommit: { subject: string }; files: { path: string; kind: string; added: number }[] }[];
    expect(list.map((w) => w.name).sort()).toEqual(['bad-setup', 'feat-one', 'with-setup', HOSTILE].sort());
    const one = list.find((w) => w.name === 'feat-one')!;
    expect(one).toMatchObject({ path: where, branch: 'feat/one', base: 'main', ahead: 1, behind: 0, changed: 2, lastCommit: { subject: 'the agent did a thing' }, window: { name: 'feat/one' } });
    expect(one.files).toEqual([
      expect.objectContaining({ path: 'README', kind: 'unstaged', added: 1 }),
      expect.objectContaining({ path: 'scratch.txt', kind: 'untracked', added: 1 }),
    ]);
    expect(list.find((w) => w.name === 'bad-setup')!.window).toBeNull();
    const text = await env.nerdrWith(['worktree', 'ls'], { cwd: repo });
    expect(text.stdout).toMatch(/feat-one\s+feat\/one\s+main\s+feat\/one \(@\d+, \w+\)\s+2\s+\+1 -0/);
  });

  it('worktree rm refuses, naming what would be lost; --force stops the window and removes it, keeping the branch', async () => {
    const where = path.join(wtRoot, 'feat-one');
    // a supervisor that died must not hide the agent still running in the worktree
    const sup = await env.supervisorPid();
    expect(sup).not.toBeNull();
    process.kill(sup!, 'SIGKILL');
    await waitFor(() => !pidAlive(sup!), { what: 'the supervisor to be gone' });
    const r = await env.nerdrWith(['worktree', 'rm', 'feat-one'], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not removing feat-one/);
    expect(r.stderr).toMatch(/1 uncommitted change: README/);
    expect(r.stderr).toMatch(/1 untracked file: scratch\.txt/);
    expect(r.stderr).toMatch(/1 commit on feat\/one that no other branch has \(kept on feat\/one, but merged nowhere\): [0-9a-f]+ the agent did a thing/);
    expect(r.stderr).toMatch(/the agent window feat\/one \(@\d+, unknown\) still runs in it/);
    expect(existsSync(where)).toBe(true);
    const f = await env.nerdrWith(['worktree', 'rm', 'feat-one', '--force'], { cwd: repo });
    expect(f.code, f.stderr).toBe(0);
    expect(f.stdout).toMatch(/stopped the agent window feat\/one/);
    expect(f.stdout).toMatch(/kept the branch feat\/one/);
    expect(existsSync(where)).toBe(false);
    await waitFor(async () => !(await row('feat/one')), { what: 'the window to be gone' });
    expect(git(repo, 'branch', '--list', 'feat/one').trim()).toBe('feat/one');
    // a clean one with nothing on its branch goes without --force; --delete-branch takes the branch
    const d = await env.nerdrWith(['worktree', 'rm', 'bad-setup', '--delete-branch'], { cwd: repo });
    expect(d.stdout + d.stderr).toMatch(/deleted the branch bad-setup/);
    expect(d.code, d.stderr).toBe(0);
    expect(git(repo, 'branch', '--list', 'bad-setup').trim()).toBe('');
    const u = await env.nerdrWith(['worktree', 'rm', 'nope'], { cwd: repo });
    expect(u.stderr).toMatch(/no worktree "nope" made by nerdr/);
  });

  it('worktree merge: refuses a dirty main checkout; a conflict is aborted and listed; then it merges', async () => {
    const r = await nerdrIn(repo, 'new', '-d', '--worktree', 'to-merge', '--cmd', 'exec sleep 300');
    expect(r.code, r.stderr).toBe(0);
    const where = path.join(wtRoot, 'to-merge');
    writeFileSync(path.join(where, 'README'), 'one\nfrom the branch\n');
    git(where, 'commit', '-qam', 'branch edit');

    writeFileSync(path.join(repo, 'README'), 'one\ndirty\n');
    const dirty = await env.nerdrWith(['worktree', 'merge', 'to-merge'], { cwd: repo });
    expect(dirty.code).toBe(1);
    expect(dirty.stderr).toMatch(/has uncommitted changes: README; nothing was merged/);
    git(repo, 'commit', '-qam', 'main edit');
    const head = git(repo, 'rev-parse', 'HEAD').trim();

    const conflict = await env.nerdrWith(['worktree', 'merge', 'to-merge'], { cwd: repo });
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toMatch(/merging to-merge into main conflicts in 1 file: README; the merge was aborted, nothing changed/);
    expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(git(repo, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(existsSync(path.join(repo, '.git', 'MERGE_HEAD'))).toBe(false);

    // resolved on the branch, it merges
    writeFileSync(path.join(where, 'NEW'), 'new\n');
    git(where, 'merge', '-q', '-X', 'theirs', '--no-edit', 'main');
    git(where, 'add', 'NEW');
    git(where, 'commit', '-qm', 'a new file');
    const ok = await env.nerdrWith(['worktree', 'merge', 'to-merge', '--json'], { cwd: repo });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ branch: 'to-merge', into: 'main', how: 'fast-forward' });
    expect(readFileSync(path.join(repo, 'NEW'), 'utf8')).toBe('new\n');
    const again = await env.nerdrWith(['worktree', 'merge', 'to-merge'], { cwd: repo });
    expect(again.stdout).toMatch(/nothing to merge/);
    // --into a branch the main checkout is not on is refused with the fix
    git(repo, 'branch', 'other');
    const into = await env.nerdrWith(['worktree', 'merge', 'to-merge', '--into', 'other'], { cwd: repo });
    expect(into.code).toBe(1);
    expect(into.stderr).toMatch(/is on main, not other/);
  });

  it('a restarted supervisor keeps the worktree of each window', async () => {
    const pid = await env.supervisorPid();
    const r = await env.nerdr('supervisor', 'restart');
    expect(r.code, r.stderr).toBe(0);
    await waitFor(async () => {
      const p = await env.supervisorPid();
      return p !== null && p !== pid;
    }, { what: 'a new supervisor' });
    const a = await waitFor(() => row(HOSTILE), { what: 'the hostile window after the restart' });
    expect(a).toMatchObject({ worktree: path.join(wtRoot, HOSTILE), branch: HOSTILE, base: 'main' });
  });

  it('restore brings each window back in its worktree, or says why not when the folder is gone', async () => {
    const sessions = path.join(env.stateDir, 'sessions');
    await waitFor(() => {
      const files = existsSync(sessions) ? readdirSync(sessions).filter((f) => f.endsWith('.json')) : [];
      const saved = files.map((f) => readFileSync(path.join(sessions, f), 'utf8')).join('');
      return saved.includes('"to-merge"') && saved.includes('"with-setup"') && saved.includes(JSON.stringify(HOSTILE));
    }, { what: 'the saved session to hold the worktree windows' });
    // the folder of one is removed behind nerdr's back
    git(repo, 'worktree', 'remove', '--force', path.join(wtRoot, 'with-setup'));
    await env.tmux('kill-server');
    const r = await env.nerdrWith(['restore', '--json'], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { windows: { name: string; action: string; cwd: string; worktree: string | null; note: string | null }[] };
    const back = out.windows.find((w) => w.name === 'to-merge')!;
    expect(back).toMatchObject({ action: 'created', cwd: path.join(wtRoot, 'to-merge'), worktree: path.join(wtRoot, 'to-merge') });
    const gone = out.windows.find((w) => w.name === 'with-setup')!;
    expect(gone.worktree).toBeNull();
    expect(gone.note).toMatch(/the worktree .*with-setup \(branch with-setup\) is gone: started a new conversation in .* \(to work on that branch again: nerdr new --cmd … --worktree with-setup\)/);
    const rows = await waitFor(async () => {
      const l = await env.lsJson();
      return l.length >= 3 && l;
    }, { what: 'the restored windows in ls' });
    expect(rows.find((x) => x.name === 'to-merge')).toMatchObject({ worktree: path.join(wtRoot, 'to-merge'), branch: 'to-merge', base: 'main' });
    expect(rows.find((x) => x.name === HOSTILE)).toMatchObject({ worktree: path.join(wtRoot, HOSTILE), branch: HOSTILE, cwd: path.join(wtRoot, HOSTILE) });
    expect(rows.find((x) => x.name === 'with-setup')).toMatchObject({ worktree: null });
    const text = await env.nerdrWith(['restore', '--dry-run'], {});
    expect(text.code, text.stderr).toBe(0);
  });
});
