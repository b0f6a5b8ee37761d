// `nerdr worktree land` on a real repository with agent windows on a private tmux server: a clean
// branch lands (window stopped, worktree gone, branch deleted, main moved in its checkout); of two
// branches that conflict, the second is skipped and its running agent gets a queued message; a
// failing [worktrees] check changes nothing at all.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveEnv, tmuxAvailable, waitFor, type AgentRowLike, type LiveEnv } from './helpers/env.js';
import { git, makeRepo } from './helpers/git-repo.js';

// output every second: "working" for the quiet rule, so a message to it stays queued
const BUSY = "exec sh -c 'while :; do echo busy; sleep 1; done'";

describe.skipIf(!tmuxAvailable)('worktree land', () => {
  let env: LiveEnv;
  let root: string;
  let repo: string;
  let wtRoot: string;

  const row = async (name: string): Promise<AgentRowLike | undefined> => (await env.lsJson()).find((r) => r.name === name);
  const land = (...args: string[]) => env.nerdrWith(['worktree', 'land', ...args], { cwd: repo });
  const config = (text: string) => writeFileSync(path.join(env.configDir, 'config.toml'), text);
  const at = (branch: string) => path.join(wtRoot, branch.replace(/\//g, '-'));

  /** An agent window in a new worktree on `branch`, and `file` committed there with `text`. */
  async function agentWith(branch: string, file: string, text: string, cmd = 'exec sleep 300'): Promise<string> {
    const r = await env.nerdrWith(['new', '-d', '--worktree', branch, '--cmd', cmd], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    await waitFor(() => row(branch), { what: `the ${branch} window` });
    writeFileSync(path.join(at(branch), file), text);
    git(at(branch), 'add', file);
    git(at(branch), 'commit', '-qm', `${branch} edits ${file}`);
    return r.stdout.trim();
  }

  beforeAll(async () => {
    env = await startLiveEnv();
    ({ root, repo, wtRoot } = makeRepo('nerdr-wtl-', '.env\n'));
  });

  afterAll(async () => {
    await env?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('lands a clean branch: main moves in its checkout, the window stops, the worktree and the branch go', async () => {
    const win = await agentWith('land/clean', 'clean.txt', 'clean\n');
    const tip = git(at('land/clean'), 'rev-parse', 'HEAD').trim();
    const r = await land('land-clean');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain('land-clean: merging land/clean onto main in a temporary worktree');
    expect(r.stdout).toMatch(/^land-clean: moved main [0-9a-f]{8} → [0-9a-f]{8} \(fast-forward, in .*repo; 1 file\)$/m);
    expect(lines).toContain(`land-clean: stopped the agent window land/clean (${win}, unknown)`);
    expect(lines).toContain(`land-clean: removed the worktree ${at('land/clean')}`);
    expect(lines).toContain('land-clean: deleted the branch land/clean');
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(tip);
    expect(readFileSync(path.join(repo, 'clean.txt'), 'utf8')).toBe('clean\n');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    await waitFor(async () => !(await row('land/clean')), { what: 'the land/clean window to be gone' });
    expect(existsSync(at('land/clean'))).toBe(false);
    expect(git(repo, 'branch', '--list', 'land/clean')).toBe('');
    expect(git(repo, 'worktree', 'list')).not.toMatch(/nerdr-land-/);
    const ls = JSON.parse((await env.nerdrWith(['worktree', 'ls', '--json'], { cwd: repo })).stdout) as { name: string }[];
    expect(ls.map((w) => w.name)).not.toContain('land-clean');
  });

  it('lands several one after another; one that then conflicts is skipped and its running agent is told', async () => {
    await agentWith('first/x', 'README', 'one\nfrom first\n');
    const second = await agentWith('second/x', 'README', 'one\nfrom second\n', BUSY);
    await agentWith('third/x', 'third.txt', 'third\n');
    const secondTip = git(at('second/x'), 'rev-parse', 'HEAD').trim();
    const r = await land('first-x', 'second-x', 'third-x', '--json');
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { landed: { name: string; how: string }[]; skipped: { name: string; kind: string; conflicts: string[]; told: { window: string; id: string }[] }[] };
    expect(out.landed.map((l) => [l.name, l.how])).toEqual([['first-x', 'fast-forward'], ['third-x', 'merge']]);
    expect(out.skipped).toHaveLength(1);
    expect(out.skipped[0]).toMatchObject({ name: 'second-x', kind: 'conflict', conflicts: ['README'], told: [{ window: second }] });
    expect(r.stderr).toMatch(/nerdr: second-x not landed: merging second\/x onto main conflicts in 1 file: README; nothing changed/);
    expect(r.stderr).toMatch(/second-x: told its agent second\/x \(@\d+\) which files conflict with first\/x: message \S+, #1 in its queue/);
    // main has first and third; second's worktree, branch and window are as they were
    expect(readFileSync(path.join(repo, 'README'), 'utf8')).toBe('one\nfrom first\n');
    expect(readFileSync(path.join(repo, 'third.txt'), 'utf8')).toBe('third\n');
    expect(git(repo, 'rev-parse', 'second/x').trim()).toBe(secondTip);
    expect(git(at('second/x'), 'status', '--porcelain')).toBe('');
    expect((await row('second/x'))?.state).not.toBe('exited');
    // the agent's queue holds the message, naming the files and the branch that landed first
    const inbox = (JSON.parse((await env.nerdr('inbox', '--json')).stdout) as { rows: { kind: string; name: string; id: string; summary: string }[] }).rows;
    const q = inbox.find((x) => x.kind === 'queued' && x.name === 'second/x');
    expect(q?.summary).toMatch(/the branch first\/x landed in main first, and your branch second\/x now conflicts with main in README/);
    const st = await env.nerdr('send', '--status', out.skipped[0]!.told[0]!.id);
    expect(st.code, st.stderr).toBe(0);
    expect(st.stdout).toMatch(/second\/x/);
  });

  it('a failing [worktrees] check changes nothing (base, main checkout, worktree, window); a passing one lands', async () => {
    config('[worktrees]\ncheck = ["sh", "-c", "echo running the suite; test -f checked.txt || { echo FAIL: checked.txt is missing >&2; exit 1; }"]\n');
    const win = await agentWith('check/me', 'other.txt', 'other\n');
    // the user's own uncommitted change in the main checkout, in another file: kept throughout
    writeFileSync(path.join(repo, 'notes.md'), 'mine\n');
    git(repo, 'add', 'notes.md');
    writeFileSync(path.join(repo, 'notes.md'), 'mine, edited\n');
    const main = git(repo, 'rev-parse', 'main').trim();
    const status = git(repo, 'status', '--porcelain');
    const tip = git(at('check/me'), 'rev-parse', 'HEAD').trim();

    const r = await land('check-me');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^check-me: checking: sh -c .*\(in .*\)$/m);
    expect(r.stderr).toMatch(/check-me not landed: the check sh -c .* failed \(exit 1\) on check\/me merged into main, after \d+ s; nothing changed\. Its last lines:\n {4}running the suite\n {4}FAIL: checked.txt is missing/);
    expect(r.stderr).toMatch(/fix: fix it on the branch/);
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(main);
    expect(git(repo, 'status', '--porcelain')).toBe(status);
    expect(readFileSync(path.join(repo, 'notes.md'), 'utf8')).toBe('mine, edited\n');
    expect(git(at('check/me'), 'rev-parse', 'HEAD').trim()).toBe(tip);
    expect(git(repo, 'branch', '--list', 'check/me')).toMatch(/check\/me/);
    expect((await row('check/me'))?.window).toBe(win);
    expect(git(repo, 'worktree', 'list')).not.toMatch(/nerdr-land-/);

    writeFileSync(path.join(at('check/me'), 'checked.txt'), 'yes\n');
    git(at('check/me'), 'add', 'checked.txt');
    git(at('check/me'), 'commit', '-qm', 'make the check pass');
    const ok = await land('check-me');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^check-me: the check passed \(\d+ s\)$/m);
    expect(readFileSync(path.join(repo, 'checked.txt'), 'utf8')).toBe('yes\n');
    expect(readFileSync(path.join(repo, 'notes.md'), 'utf8')).toBe('mine, edited\n');
    expect(git(repo, 'status', '--porcelain')).toBe(status);
    await waitFor(async () => !(await row('check/me')), { what: 'the check/me window to be gone' });
    config('');
  });
});
