// `nerdr worktree land` (src/worktrees/land.ts): its pure parts, and the landing itself on real
// git repositories in a temporary folder (git only: no tmux, the window stop is a stand-in).

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { conflictMessage, inTheWay, landedFirst, landWorktree, LandRefused, lastLines, type LandOptions } from '../../../src/worktrees/land.js';
import type { WorktreeRecord } from '../../../src/worktrees/registry.js';
import type { AgentRow } from '../../../src/protocol/index.js';

describe('land: pure parts', () => {
  it('keeps the last lines of a check, control characters shown', () => {
    expect(lastLines('a\nb\nc\n\n', 2)).toEqual(['b', 'c']);
    expect(lastLines('x\x1b]0;t\x07\r\n', 5)).toEqual(['x^[]0;t^G']);
    expect(lastLines(' \n')).toEqual(['(no output)']);
  });

  it('finds the user\'s uncommitted files a landing would touch, a file turned folder too', () => {
    expect(inTheWay(['a', 'b', 'c/d'], ['b', 'c', 'e'])).toEqual(['b', 'c/d']);
    expect(inTheWay(['x'], ['y'])).toEqual([]);
    expect(inTheWay(['src'], ['src/new.ts'])).toEqual(['src']);
  });

  it('names the branches that landed first: those touching the conflicting files, else all of that base', () => {
    const l = (branch: string, files: string[], base = 'main', repo = '/r') => ({ branch, base, repo, files });
    const landed = [l('a', ['x']), l('b', ['y']), l('c', ['x'], 'dev'), l('d', ['x'], 'main', '/other')];
    expect(landedFirst(landed, { base: 'main', repo: '/r' }, ['x'])).toEqual(['a']);
    expect(landedFirst(landed, { base: 'main', repo: '/r' }, ['z'])).toEqual(['a', 'b']);
    expect(landedFirst([], { base: 'main', repo: '/r' }, ['x'])).toEqual([]);
  });

  it('tells the agent the files, the branch that landed first and what to do, names shown visibly', () => {
    const m = conflictMessage({ branch: 'feat/b', base: 'main' }, ['README', 'a\x1bb'], ['feat/a']);
    expect(m).toBe('nerdr worktree land: the branch feat/a landed in main first, and your branch feat/b now conflicts with main in README, a^[b. Please merge main into your branch (git merge main), resolve those files, run the tests and commit; then it can land.');
  });
});

function g(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('land: on a real repository', () => {
  let root = '';
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /** main with README (three lines); worktrees beside it, each on a branch from main. */
  function setup(): { repo: string; wt: (branch: string) => WorktreeRecord } {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'nerdr-unit-land-')));
    const repo = path.join(root, 'repo');
    mkdirSync(repo);
    g(repo, 'init', '-q', '-b', 'main');
    g(repo, 'config', 'user.email', 't@example.com');
    g(repo, 'config', 'user.name', 'T');
    writeFileSync(path.join(repo, 'README'), 'one\ntwo\nthree\n');
    g(repo, 'add', '.');
    g(repo, 'commit', '-qm', 'first');
    return {
      repo,
      wt: (branch) => {
        const where = path.join(root, 'wt', branch.replace(/\//g, '-'));
        g(repo, 'worktree', 'add', '-q', '-b', branch, where, 'main');
        return { name: path.basename(where), path: where, branch, base: 'main', repo, createdAt: '' };
      },
    };
  }

  function commit(dir: string, file: string, text: string, msg = `edit ${file}`): void {
    writeFileSync(path.join(dir, file), text);
    g(dir, 'add', file);
    g(dir, 'commit', '-qm', msg);
  }

  const lines: string[] = [];
  const opts = (o: Partial<LandOptions> = {}): LandOptions => ({ rebase: false, check: null, copy: [], allowIgnored: [], agents: [], stopWindow: async () => 'stopped', say: (l) => void lines.push(l), ...o });
  const head = (dir: string, ref = 'HEAD') => g(dir, 'rev-parse', ref).trim();

  it('fast-forwards a clean branch into main checked out in the main checkout, then removes the worktree and the branch', async () => {
    const { repo, wt } = setup();
    const a = wt('feat/a');
    commit(a.path, 'a.txt', 'A\n');
    const tip = head(a.path);
    const r = await landWorktree(a, opts());
    expect(r).toMatchObject({ how: 'fast-forward', to: tip, files: ['a.txt'], checkout: repo, removed: true, branchDeleted: true, kept: [] });
    expect(head(repo)).toBe(tip);
    expect(readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('A\n');
    expect(g(repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(a.path)).toBe(false);
    expect(g(repo, 'branch', '--list', 'feat/a')).toBe('');
    expect(g(repo, 'worktree', 'list')).not.toMatch(/nerdr-land-/);
  });

  it('makes a merge commit when main moved on, keeping the user\'s unrelated uncommitted change in the main checkout', async () => {
    const { repo, wt } = setup();
    const a = wt('feat/a');
    commit(a.path, 'a.txt', 'A\n');
    commit(repo, 'm.txt', 'M\n');
    writeFileSync(path.join(repo, 'README'), 'one\ntwo\nthree\nmine\n');
    const r = await landWorktree(a, opts());
    expect(r.how).toBe('merge');
    expect(g(repo, 'log', '-1', '--format=%s')).toBe("Merge branch 'feat/a' into main\n");
    expect(g(repo, 'status', '--porcelain')).toBe(' M README\n');
    expect(readFileSync(path.join(repo, 'README'), 'utf8')).toBe('one\ntwo\nthree\nmine\n');
  });

  it('refuses, changing nothing, when the user\'s uncommitted change in the main checkout is in a file the landing changes', async () => {
    const { repo, wt } = setup();
    const a = wt('feat/a');
    commit(a.path, 'README', 'one\nTWO\nthree\n');
    writeFileSync(path.join(repo, 'README'), 'mine\n');
    const before = head(repo);
    const err = await landWorktree(a, opts()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LandRefused);
    expect((err as LandRefused).message).toMatch(/uncommitted changes to a file the landing changes: README; nothing changed/);
    expect((err as LandRefused).fixText).toMatch(/stash/);
    expect(head(repo)).toBe(before);
    expect(readFileSync(path.join(repo, 'README'), 'utf8')).toBe('mine\n');
    expect(existsSync(a.path)).toBe(true);
    expect(g(repo, 'worktree', 'list')).not.toMatch(/nerdr-land-/);
  });

  it('a conflict changes nothing and lists the files; a failing check too, with its last lines', async () => {
    const { repo, wt } = setup();
    const a = wt('feat/a');
    commit(a.path, 'README', 'one\nA\nthree\n');
    commit(repo, 'README', 'one\nMAIN\nthree\n');
    const before = head(repo);
    const err = (await landWorktree(a, opts()).catch((e: unknown) => e)) as LandRefused;
    expect(err).toMatchObject({ kind: 'conflict', conflicts: ['README'] });
    expect(err.message).toMatch(/merging feat\/a onto main conflicts in 1 file: README; nothing changed/);
    expect(head(repo)).toBe(before);
    expect(existsSync(a.path)).toBe(true);

    const b = wt('feat/b');
    commit(b.path, 'b.txt', 'B\n');
    const check = ['sh', '-c', 'echo checking; test -f b.txt && echo "1 test failed: b.txt" && exit 3'];
    const bad = (await landWorktree(b, opts({ check })).catch((e: unknown) => e)) as LandRefused;
    expect(bad).toMatchObject({ kind: 'check', checkTail: ['checking', '1 test failed: b.txt'] });
    expect(bad.message).toMatch(/failed \(exit 3\) on feat\/b merged into main/);
    expect(head(repo)).toBe(before);
    expect(g(repo, 'branch', '--list', 'feat/b')).toMatch(/feat\/b/);
    expect(g(repo, 'worktree', 'list')).not.toMatch(/nerdr-land-/);
    // a check that passes lets it land; it ran in the result (feat/b started after main's commit: a fast-forward)
    const ok = await landWorktree(b, opts({ check: ['sh', '-c', 'test -f b.txt && grep -q MAIN README'] }));
    expect(ok.how).toBe('fast-forward');
    expect(head(repo)).toBe(ok.to);
    expect(lines.some((l) => /^the check passed/.test(l))).toBe(true);
  });

  it('refuses a worktree with uncommitted work (it would go with the worktree); stops its windows; --rebase makes a straight line', async () => {
    const { repo, wt } = setup();
    const a = wt('feat/a');
    // nothing committed yet: nothing to land, and its agent is not stopped for it
    const none = (await landWorktree(a, opts()).catch((e: unknown) => e)) as LandRefused;
    expect(none.message).toBe('main has every commit of feat/a already: nothing to land');
    commit(a.path, 'a.txt', 'A\n');
    writeFileSync(path.join(a.path, 'wip.txt'), 'x\n');
    const err = (await landWorktree(a, opts()).catch((e: unknown) => e)) as LandRefused;
    expect(err.message).toMatch(/holds what landing would lose.*\n.*1 untracked file: wip\.txt/);
    rmSync(path.join(a.path, 'wip.txt'));
    commit(repo, 'm.txt', 'M\n');
    const stopped: string[] = [];
    const agent = { name: 'feat/a', window: '@7', agent: 'claude', state: 'idle', worktree: a.path, cwd: a.path } as unknown as AgentRow;
    const r = await landWorktree(a, opts({ rebase: true, agents: [agent], stopWindow: async (w) => (stopped.push(w.window), 'stopped') }));
    expect(r).toMatchObject({ how: 'rebase', stopped: ['the agent window feat/a (@7, claude)'], removed: true, branchDeleted: true });
    expect(stopped).toEqual(['@7']);
    expect(g(repo, 'log', '--format=%s', 'main')).toBe('edit a.txt\nedit m.txt\nfirst\n');
  });

  it('an agent landing its own worktree: the others stop first, its own window last, after the worktree and branch went', async () => {
    const { wt } = setup();
    const a = wt('feat/a');
    commit(a.path, 'a.txt', 'A\n');
    const w = (window: string, name: string) => ({ name, window, agent: 'claude', state: 'idle', worktree: a.path, cwd: a.path }) as unknown as AgentRow;
    const seen: [string, boolean][] = [];
    const r = await landWorktree(a, opts({ agents: [w('@1', 'me'), w('@2', 'helper')], self: '@1', stopWindow: async (x) => (seen.push([x.window, existsSync(a.path)]), 'stopped') }));
    expect(seen).toEqual([['@2', true], ['@1', false]]);
    expect(r).toMatchObject({ removed: true, branchDeleted: true, kept: [] });
    // refused by the supervisor (an agent may not stop itself under control = "own"): said, not thrown
    const b = wt('feat/b');
    commit(b.path, 'b.txt', 'B\n');
    const { NerdrError } = await import('../../../src/errors.js');
    const r2 = await landWorktree(b, opts({ agents: [{ ...w('@3', 'me'), worktree: b.path, cwd: b.path } as AgentRow], self: '@3', stopWindow: async () => { throw new NerdrError('not permitted'); } }));
    expect(r2.kept).toEqual(['the agent window me (@3, claude) runs this command and was not stopped (not permitted): exit its agent when it is done']);
  });
});
