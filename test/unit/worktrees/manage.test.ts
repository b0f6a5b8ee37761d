// The pure parts of `nerdr worktree rm | merge` (src/worktrees/manage.ts, git.ts, visible.ts):
// which ignored entries [worktrees] rm_ignored lets go, which operation a git folder says is under
// way, and the refusal and --force lines, with names from the repository shown visibly.

import { describe, expect, it } from 'vitest';
import { operationFrom } from '../../../src/worktrees/git.js';
import { ignoredAllowed, removalProblems, thrownAway, type RemovalCheck } from '../../../src/worktrees/manage.js';
import type { WorktreeRecord } from '../../../src/worktrees/registry.js';
import { visible } from '../../../src/text.js';

const rec: WorktreeRecord = { name: 'fix-a', path: '/w/fix-a', branch: 'fix/a', base: 'main', repo: '/r', createdAt: '2025-01-01T00:00:00Z' };
const none: RemovalCheck = { changed: [], untracked: [], ignored: [], ignoredLetGo: [], ignoredCopies: [], detached: [], branchOnly: [], running: [] };

describe('worktree rm and merge rules', () => {
  it('shows control characters of a name as \\xNN, leaving other text as it is', () => {
    expect(visible('a\x1b[31mb\nc\x7f\u009bd é')).toBe('a^[[31mb^Jc^?<9b>d é');
    expect(visible('plain/name.txt')).toBe('plain/name.txt');
  });

  it('[worktrees] rm_ignored lets go an ignored entry that is one of its paths or inside one', () => {
    expect(ignoredAllowed('build/', ['build/'])).toBe(true);
    expect(ignoredAllowed('build/', ['build'])).toBe(true);
    expect(ignoredAllowed('build/out/x.o', ['./build/'])).toBe(true);
    expect(ignoredAllowed('builder/', ['build/'])).toBe(false);
    expect(ignoredAllowed('.env', ['build/', 'node_modules'])).toBe(false);
    expect(ignoredAllowed('build/', ['build/cache/'])).toBe(false);
    expect(ignoredAllowed('x', ['/', '.', ''])).toBe(false);
  });

  it('reads the operation under way from the files in the git folder', () => {
    expect(operationFrom(new Set())).toBeNull();
    expect(operationFrom(new Set(['MERGE_HEAD']))).toBe('merge');
    expect(operationFrom(new Set(['rebase-merge']))).toBe('rebase');
    expect(operationFrom(new Set(['rebase-apply']))).toBe('rebase');
    expect(operationFrom(new Set(['rebase-apply', 'rebase-apply/applying']))).toBe('am');
    expect(operationFrom(new Set(['CHERRY_PICK_HEAD', 'sequencer']))).toBe('cherry-pick');
    expect(operationFrom(new Set(['REVERT_HEAD', 'sequencer']))).toBe('revert');
    expect(operationFrom(new Set(['BISECT_START']))).toBe('bisect');
  });

  it('refuses nothing when nothing would be lost', () => {
    expect(removalProblems({ ...none, ignoredLetGo: ['build/'], ignoredCopies: ['.env'] }, rec, true)).toEqual([]);
  });

  it('names each thing a removal would lose, visibly', () => {
    const c: RemovalCheck = {
      ...none,
      changed: ['README'],
      untracked: ['evil\x1b]0;x\x07'],
      ignored: ['.env', 'build/'],
      detached: ['abc1234 lonely \x1b[2J'],
      branchOnly: ['def5678 on the branch'],
    };
    const lines = removalProblems(c, rec, false);
    expect(lines).toEqual([
      '1 uncommitted change: README',
      '1 untracked file: evil^[]0;x^G',
      '2 ignored files or folders (git would delete them): .env, build/',
      '1 commit on its detached HEAD that no branch or tag reaches (only git fsck would find it afterwards): abc1234 lonely ^[[2J',
      '1 commit on fix/a that no other branch has (kept on fix/a, but merged nowhere): def5678 on the branch',
    ]);
    expect(removalProblems(c, rec, true)[4]).toMatch(/\(lost with the branch\)/);
  });

  it('--force lists what it threw away, every item up to 50, then how many more', () => {
    const many = Array.from({ length: 52 }, (_, i) => `f${i}`);
    const lines = thrownAway({ ...none, untracked: many, ignoredLetGo: ['build/'], detached: ['abc1234 lonely'], branchOnly: ['def5678 x'] }, rec, false);
    expect(lines[0]).toBe(`deleted 52 untracked files: ${many.slice(0, 50).join(', ')} and 2 more`);
    expect(lines[1]).toBe('deleted 1 ignored file or folder [worktrees] rm_ignored lets go: build/');
    expect(lines[2]).toMatch(/^left 1 commit of its detached HEAD that no branch or tag reaches: abc1234 lonely \(until git gc prunes it, `git -C "\/r" branch NAME abc1234` brings it back\)$/);
    // the branch is kept: its commits are not thrown away
    expect(lines).toHaveLength(3);
    expect(thrownAway({ ...none, branchOnly: ['def5678 x'] }, rec, true)).toEqual(['lost 1 commit that only fix/a had: def5678 x']);
  });
});
