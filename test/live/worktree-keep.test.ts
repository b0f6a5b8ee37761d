// `nerdr worktree rm | merge` and `nerdr new --worktree` never lose work (issue 26): a commit only
// a detached HEAD holds, ignored files, what --force throws away, the user's own merge (or
// bisect) in the main checkout, a branch left behind by a creation that failed, and the merge
// commit's message. Real git repositories in a temporary folder; real tmux (a private server).
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';
import { git, makeRepo } from './helpers/git-repo.js';

describe.skipIf(!tmuxAvailable)('worktrees keep work', () => {
  let env: LiveEnv;
  let root: string;
  let repo: string;
  let wtRoot: string;
  const nerdr = (...args: string[]) => env.nerdrWith(args, { cwd: repo });
  const config = (text: string) => writeFileSync(path.join(env.configDir, 'config.toml'), text);
  const commit = (cwd: string, file: string, text: string, subject: string): string => {
    writeFileSync(path.join(cwd, file), text);
    git(cwd, 'add', file);
    git(cwd, 'commit', '-qm', subject);
    return git(cwd, 'rev-parse', 'HEAD').trim();
  };

  /** A worktree made by `nerdr new --worktree`, its window left running or closed again. */
  async function worktree(branch: string, keepWindow = false): Promise<{ where: string; win: string }> {
    const r = await nerdr('new', '-d', '--worktree', branch, '--cmd', 'exec sleep 300');
    expect(r.code, r.stderr).toBe(0);
    const win = r.stdout.trim();
    const where = path.join(wtRoot, branch.replace(/\//g, '-'));
    if (!keepWindow) {
      await env.tmuxOk('kill-window', '-t', win);
      await waitFor(async () => !(await env.lsJson()).some((a) => a.window === win), { what: `the window of ${branch} to be gone` });
    }
    return { where, win };
  }

  beforeAll(async () => {
    env = await startLiveEnv();
    ({ root, repo, wtRoot } = makeRepo('nerdr-wt-keep-', '.env\nbuild/\n'));
  });

  afterAll(async () => {
    await env?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('rm refuses a worktree whose detached HEAD holds a commit no ref reaches, naming it and the fix', async () => {
    const { where } = await worktree('detached');
    git(where, 'checkout', '-q', '--detach');
    const lonely = commit(where, 'lonely.txt', 'x\n', 'a lonely commit');
    const r = await nerdr('worktree', 'rm', 'detached');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`1 commit on its detached HEAD that no branch or tag reaches (only git fsck would find it afterwards): ${lonely.slice(0, 7)}`);
    expect(r.stderr).toMatch(/a lonely commit/);
    expect(r.stderr).toMatch(new RegExp(`fix: .*branch NAME ${lonely.slice(0, 7)}`));
    expect(existsSync(where)).toBe(true);
    // once a branch holds it, nothing is lost and it goes without --force
    git(repo, 'branch', 'keep-lonely', lonely);
    const ok = await nerdr('worktree', 'rm', 'detached');
    expect(ok.code, ok.stderr).toBe(0);
    expect(existsSync(where)).toBe(false);
  });

  it('rm refuses ignored files and lists them; [worktrees] rm_ignored lets build output go, and a copy the main checkout has the same is no loss', async () => {
    const { where } = await worktree('ignored');
    writeFileSync(path.join(where, '.env'), 'SECRET=changed in the worktree\n');
    mkdirSync(path.join(where, 'build'));
    writeFileSync(path.join(where, 'build', 'out.bin'), Buffer.alloc(100 * 1024, 7));
    const r = await nerdr('worktree', 'rm', 'ignored');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/2 ignored files or folders \(git would delete them\): \.env, build\//);
    expect(r.stderr).toMatch(/\[worktrees\] rm_ignored/);
    expect(existsSync(path.join(where, 'build', 'out.bin'))).toBe(true);
    expect(existsSync(path.join(where, '.env'))).toBe(true);
    try {
      config('[worktrees]\nrm_ignored = ["build/"]\n');
      const still = await nerdr('worktree', 'rm', 'ignored');
      expect(still.code).toBe(1);
      expect(still.stderr).toMatch(/1 ignored file or folder \(git would delete them\): \.env$/m);
      writeFileSync(path.join(where, '.env'), 'SECRET=1\n');
      const ok = await nerdr('worktree', 'rm', 'ignored');
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toMatch(/deleted 1 ignored file or folder \[worktrees\] rm_ignored lets go: build\//);
      expect(ok.stdout).toMatch(/deleted 1 ignored file the main checkout has the same: \.env/);
      expect(existsSync(where)).toBe(false);
    } finally {
      config('');
    }
  });

  it('rm --force says which agent window it stopped and exactly what it threw away; names show control characters visibly', async () => {
    const { where, win } = await worktree('forced', true);
    const evil = 'evil\x1b[31mname';
    writeFileSync(path.join(where, 'README'), 'one\nchanged\n');
    writeFileSync(path.join(where, 'notes.txt'), 'n\n');
    writeFileSync(path.join(where, evil), 'e\n');
    writeFileSync(path.join(where, '.env'), 'SECRET=mine\n');
    git(where, 'checkout', '-q', '--detach');
    const lost = commit(where, 'gone.txt', 'g\n', 'a commit left behind');
    const refused = await nerdr('worktree', 'rm', 'forced');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('evil^[[31mname');
    expect(refused.stderr).not.toContain('\x1b');
    expect(refused.stderr).toMatch(/the agent window forced \(@\d+, unknown\) still runs in it/);

    const r = await nerdr('worktree', 'rm', 'forced', '--force');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('\x1b');
    const lines = r.stdout.split('\n');
    expect(lines).toContain(`stopped the agent window forced (${win}, unknown)`);
    expect(lines).toContain(`removed the worktree ${where}`);
    expect(lines).toContain('discarded 1 uncommitted change: README');
    expect(lines).toContain('deleted 2 untracked files: evil^[[31mname, notes.txt');
    expect(lines).toContain('deleted 1 ignored file or folder: .env');
    expect(r.stdout).toContain(`left 1 commit of its detached HEAD that no branch or tag reaches: ${lost.slice(0, 7)}`);
    expect(r.stdout).toMatch(/a commit left behind \(until git gc prunes it, `git -C .* branch NAME [0-9a-f]+` brings it back\)/);
    expect(lines).toContain('kept the branch forced');
    expect(existsSync(where)).toBe(false);
    await waitFor(async () => !(await env.lsJson()).some((a) => a.window === win), { what: 'the stopped window to be gone' });
  });

  it('merge refuses to start while the main checkout has a merge or a bisect of the user in progress, and leaves it as it was', async () => {
    const { where } = await worktree('to-merge');
    commit(where, 'feature.txt', 'f\n', 'the feature');
    git(repo, 'branch', 'side');
    // the user's own merge, under way: its result is the tree as it is, so the checkout looks clean
    commit(repo, 'main-only.txt', 'm\n', 'on main');
    git(repo, 'checkout', '-q', 'side');
    commit(repo, 'side.txt', 's\n', 'on side');
    git(repo, 'checkout', '-q', 'main');
    git(repo, 'merge', '-q', '-s', 'ours', '--no-commit', 'side');
    const mergeHead = path.join(repo, '.git', 'MERGE_HEAD');
    expect(existsSync(mergeHead)).toBe(true);
    const head = git(repo, 'rev-parse', 'HEAD').trim();

    const r = await nerdr('worktree', 'merge', 'to-merge');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the main checkout ${repo} has a merge in progress; nothing was merged`);
    expect(r.stderr).toMatch(/fix: finish it \(git -C ".*" commit\) or abort it \(git -C ".*" merge --abort\), then merge again/);
    expect(r.stderr).not.toMatch(/aborted/);
    expect(existsSync(mergeHead)).toBe(true);
    expect(git(repo, 'rev-parse', 'MERGE_HEAD').trim()).toBe(git(repo, 'rev-parse', 'side').trim());
    expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(head);
    git(repo, 'merge', '--abort');

    git(repo, 'bisect', 'start');
    try {
      const b = await nerdr('worktree', 'merge', 'to-merge');
      expect(b.code).toBe(1);
      expect(b.stderr).toMatch(/has a bisect in progress; nothing was merged/);
      expect(b.stderr).toMatch(/bisect reset/);
      expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(head);
    } finally {
      git(repo, 'bisect', 'reset');
    }
    const ok = await nerdr('worktree', 'merge', 'to-merge');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/merged to-merge into main/);
  });

  it("merge names the branch by its short name in the merge commit's message, and merges the branch, not a tag of that name", async () => {
    const { where } = await worktree('docs/readme');
    const tip = commit(where, 'docs.txt', 'd\n', 'docs');
    commit(repo, 'elsewhere.txt', 'e\n', 'main moves on');
    git(repo, 'tag', 'docs/readme', 'main~1');
    const r = await nerdr('worktree', 'merge', 'docs/readme', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ how: 'merge', branch: 'docs/readme', into: 'main' });
    expect(git(repo, 'log', '-1', '--format=%s').trim()).toBe("Merge branch 'docs/readme'");
    expect(git(repo, 'rev-parse', 'HEAD^2').trim()).toBe(tip);
  });

  it('a branch whose folder the file system refuses leaves nothing behind: no branch, folder, record or window', async () => {
    const before = (await env.lsJson()).length;
    // each part of the ref is short enough; the folder name, with / as -, is not (NAME_MAX 255)
    const long = `long/${'a'.repeat(200)}/${'b'.repeat(100)}`;
    const r = await nerdr('new', '-d', '--worktree', long, '--cmd', 'exec sleep 300');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/File name too long/);
    expect(r.stderr).toMatch(/was removed again, so nothing is left behind/);
    expect(git(repo, 'branch', '--list', 'long/*').trim()).toBe('');
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain('aaaa');
    expect(readdirSync(wtRoot).filter((f) => f.startsWith('long-'))).toEqual([]);
    const ls = await nerdr('worktree', 'ls', '--json');
    expect((JSON.parse(ls.stdout) as { branch: string }[]).map((w) => w.branch)).not.toContain(long);
    expect((await env.lsJson()).length).toBe(before);
  });

  it('a window that cannot be made takes back the worktree and branch made for it', async () => {
    const r = await nerdr('new', '-d', '--worktree', 'no-window', '-t', 'no-such-session', '--cmd', 'exec sleep 300');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no window was made, so the folder .*no-window and the branch no-window made for it were removed again/);
    expect(git(repo, 'branch', '--list', 'no-window').trim()).toBe('');
    expect(existsSync(path.join(wtRoot, 'no-window'))).toBe(false);
    const ls = await nerdr('worktree', 'ls', '--json');
    expect((JSON.parse(ls.stdout) as { branch: string }[]).map((w) => w.branch)).not.toContain('no-window');
  });
});
