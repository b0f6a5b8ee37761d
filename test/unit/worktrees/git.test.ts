// src/worktrees/git.ts against real repositories in a temporary folder.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { aheadBehind, checkBranchName, commitsOnlyOn, mainCheckout, operationInProgress, parseGitVersion, parseNumstat, gitVersionOk } from '../../../src/worktrees/git.js';
import { worktreeStatus } from '../../../src/worktrees/status.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function repo(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'nerdr-git-'));
  dirs.push(d);
  const r = path.join(d, 'repo');
  const g = (...a: string[]) => execFileSync('git', ['-C', r, ...a], { stdio: 'pipe' });
  execFileSync('git', ['init', '-q', r]);
  g('config', 'user.email', 't@example.com');
  g('config', 'user.name', 'T');
  g('checkout', '-q', '-b', 'main');
  writeFileSync(path.join(r, 'a.txt'), 'one\ntwo\n');
  g('add', '.');
  g('commit', '-qm', 'first');
  return r;
}

describe('git parsers', () => {
  it('reads versions and the minimum', () => {
    expect(parseGitVersion('git version 2.39.5')).toEqual([2, 39, 5]);
    expect(parseGitVersion('git version 2.17.0.windows.1')).toEqual([2, 17, 0]);
    expect(gitVersionOk([2, 17, 0])).toBe(true);
    expect(gitVersionOk([2, 16, 9])).toBe(false);
    expect(gitVersionOk([3, 0, 0])).toBe(true);
  });

  it('reads numstat renames and binaries', () => {
    const n = parseNumstat('3\t1\ta.txt\0-\t-\tpic.png\x001\t0\t\0old name\0new\tname\0');
    expect(n.get('a.txt')).toEqual({ added: 3, removed: 1 });
    expect(n.get('pic.png')).toEqual({ added: null, removed: null });
    expect(n.get('new\tname')).toEqual({ added: 1, removed: 0 });
  });
});

describe('worktreeStatus', () => {
  it('lists staged, unstaged and untracked files with line counts, ahead/behind and the last commit', async () => {
    const r = repo();
    const g = (...a: string[]) => execFileSync('git', ['-C', r, ...a], { stdio: 'pipe' });
    g('checkout', '-q', '-b', 'feat');
    writeFileSync(path.join(r, 'a.txt'), 'one\ntwo\nthree\n');
    g('commit', '-qam', 'three');
    writeFileSync(path.join(r, 'b.txt'), 'x\n');
    g('add', 'b.txt');
    writeFileSync(path.join(r, 'b.txt'), 'x\ny\n');
    writeFileSync(path.join(r, 'new #1;$(x).txt'), 'a\nb\nc');
    const s = await worktreeStatus(r, 'main');
    expect(s.branch).toBe('feat');
    expect(s.ahead).toBe(1);
    expect(s.behind).toBe(0);
    expect(s.lastCommit?.subject).toBe('three');
    expect(s.files).toEqual([
      { path: 'b.txt', from: null, kind: 'staged', status: 'A', added: 1, removed: 0 },
      { path: 'b.txt', from: null, kind: 'unstaged', status: 'M', added: 1, removed: 0 },
      { path: 'new #1;$(x).txt', from: null, kind: 'untracked', status: '?', added: 3, removed: 0 },
    ]);
    expect(await aheadBehind(r, 'no-such-ref')).toBeNull();
    expect(await commitsOnlyOn(r, 'feat')).toHaveLength(1);
    expect(await commitsOnlyOn(r, 'main')).toHaveLength(0);
    expect(await mainCheckout(r)).toBe(r);
  });

  it('refuses a branch name with git\'s own words', async () => {
    const r = repo();
    await expect(checkBranchName(r, 'a..b')).rejects.toThrow(/git refuses the branch name "a\.\.b": .*not a valid branch name/);
    await expect(checkBranchName(r, "x#y;'z\"$(touch_q)")).resolves.toBeUndefined();
  });
});

describe('operationInProgress', () => {
  it('finds a stopped cherry-pick and rebase in their own checkout only', async () => {
    const r = repo();
    const g = (cwd: string, ...a: string[]) => execFileSync('git', ['-C', cwd, ...a], { stdio: 'pipe' });
    const wt = path.join(path.dirname(r), 'wt');
    g(r, 'worktree', 'add', '-q', '-b', 'side', wt);
    writeFileSync(path.join(wt, 'a.txt'), 'side\n');
    g(wt, 'commit', '-qam', 'side');
    writeFileSync(path.join(r, 'a.txt'), 'main\n');
    g(r, 'commit', '-qam', 'main');
    expect(await operationInProgress(r)).toBeNull();
    expect(() => g(r, 'cherry-pick', 'side')).toThrow();
    expect(await operationInProgress(r)).toBe('cherry-pick');
    // the main checkout's is not the worktree's
    expect(await operationInProgress(wt)).toBeNull();
    g(r, 'cherry-pick', '--abort');
    expect(() => g(wt, 'rebase', 'main')).toThrow();
    expect(await operationInProgress(wt)).toBe('rebase');
    expect(await operationInProgress(r)).toBeNull();
    g(wt, 'rebase', '--abort');
    expect(await operationInProgress(wt)).toBeNull();
  });
});
