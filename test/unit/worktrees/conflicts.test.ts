// The pure parts of `nerdr worktree conflicts`: which git can merge-check, git merge-tree's
// output, pairing worktrees of one repository, the files two worktrees share.

import { describe, expect, it } from 'vitest';
import { mergeTreeSupport, pairsOf, parseMergeTree, sharedByWorktree, sharedFiles, type ConflictsReport } from '../../../src/worktrees/conflicts.js';
import { parseGitVersion } from '../../../src/worktrees/git.js';

const TREE = 'ed4b8c84a7ea58cd8f34ab69a9207211743687bf';

describe('mergeTreeSupport', () => {
  it('checks merges from git 2.38; before it says what is not checked and how to get it', () => {
    expect(mergeTreeSupport(parseGitVersion('git version 2.39.5'))).toEqual({ ok: true });
    expect(mergeTreeSupport([2, 38, 0])).toEqual({ ok: true });
    expect(mergeTreeSupport([3, 0, 0])).toEqual({ ok: true });
    const old = mergeTreeSupport(parseGitVersion('git version 2.37.1 (Apple Git-137.1)'));
    expect(old.ok).toBe(false);
    if (!old.ok) expect(old.why).toMatch(/^git 2\.37\.1 has no git merge-tree --write-tree \(git 2\.38 or newer\), so merges are not checked: only the shared files are listed\. Upgrade git/);
    expect(mergeTreeSupport([1, 99, 0]).ok).toBe(false);
    const unknown = mergeTreeSupport(parseGitVersion('no version here'));
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.why).toMatch(/version is unknown, so merges are not checked/);
  });
});

describe('parseMergeTree', () => {
  it('reads a clean merge: exit 0, the tree alone', () => {
    expect(parseMergeTree({ code: 0, stdout: `${TREE}\0` })).toEqual({ clean: true, tree: TREE, conflicts: [] });
  });

  it('reads conflicts: exit 1, each path once (git may repeat one), up to the empty field', () => {
    expect(parseMergeTree({ code: 1, stdout: `${TREE}\0f\0g\0f\0` })).toEqual({ clean: false, tree: TREE, conflicts: ['f', 'g'] });
    // with messages after the empty field: they are not paths
    expect(parseMergeTree({ code: 1, stdout: `${TREE}\0a b\0\0Auto-merging a b\0` })?.conflicts).toEqual(['a b']);
    // a path holding a line break or control characters stays one path
    expect(parseMergeTree({ code: 1, stdout: `${TREE}\0new\nline\0` })?.conflicts).toEqual(['new\nline']);
  });

  it('is null for an error (any other exit, or no tree)', () => {
    expect(parseMergeTree({ code: 128, stdout: '' })).toBeNull();
    expect(parseMergeTree({ code: 1, stdout: 'merge-tree: x - not something we can merge\n' })).toBeNull();
  });
});

describe('pairsOf', () => {
  it('pairs every two records of one repository once, never across repositories', () => {
    const rs = [
      { n: 'a', repo: '/r1' },
      { n: 'b', repo: '/r2' },
      { n: 'c', repo: '/r1' },
      { n: 'd', repo: '/r1' },
    ];
    expect(pairsOf(rs).map(([x, y]) => `${x.n}${y.n}`)).toEqual(['ac', 'ad', 'cd']);
    expect(pairsOf(rs.slice(0, 2))).toEqual([]);
    expect(pairsOf([])).toEqual([]);
  });
});

describe('sharedFiles', () => {
  it('lists the files both changed, sorted, with how each side changed it', () => {
    const a = { committed: ['src/x.ts', 'README', 'only-a'], uncommitted: ['README', 'notes'] };
    const b = { committed: ['README'], uncommitted: ['notes', 'src/x.ts', 'only-b'] };
    expect(sharedFiles(a, b)).toEqual([
      { path: 'README', a: 'both', b: 'committed' },
      { path: 'notes', a: 'uncommitted', b: 'uncommitted' },
      { path: 'src/x.ts', a: 'committed', b: 'uncommitted' },
    ]);
    expect(sharedFiles({ committed: ['x'], uncommitted: [] }, { committed: ['y'], uncommitted: [] })).toEqual([]);
  });
});

describe('sharedByWorktree', () => {
  it('gives each worktree its shared files and the other worktrees that changed each', () => {
    const w = (name: string, repo = '/r') => ({ name, branch: name, base: 'main', repo, path: `/wt/${name}`, exists: true, committed: [], uncommitted: [], intoBase: { clean: null, conflicts: [] } });
    const none = { clean: null, conflicts: [] };
    const report: ConflictsReport = {
      git: '2.39.5',
      mergeChecked: false,
      notChecked: null,
      worktrees: [w('a'), w('b'), w('c'), w('d', '/other')],
      pairs: [
        { repo: '/r', a: 'a', b: 'b', aBranch: 'a', bBranch: 'b', shared: [{ path: 'f', a: 'committed', b: 'committed' }], merge: none, notMergeChecked: [] },
        { repo: '/r', a: 'a', b: 'c', aBranch: 'a', bBranch: 'c', shared: [{ path: 'f', a: 'committed', b: 'uncommitted' }, { path: 'e', a: 'committed', b: 'committed' }], merge: none, notMergeChecked: ['f'] },
        { repo: '/r', a: 'b', b: 'c', aBranch: 'b', bBranch: 'c', shared: [], merge: none, notMergeChecked: [] },
      ],
    };
    const m = sharedByWorktree(report);
    expect(m.get('/wt/a')).toEqual([{ path: 'e', with: ['c'] }, { path: 'f', with: ['b', 'c'] }]);
    expect(m.get('/wt/b')).toEqual([{ path: 'f', with: ['a'] }]);
    expect(m.get('/wt/d')).toEqual([]);
  });
});

describe('findConflicts on a real repository', () => {
  it('lists shared files and predicts the conflict of two branches, touching nothing', async () => {
    const { execFileSync } = await import('node:child_process');
    const { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const { findConflicts } = await import('../../../src/worktrees/conflicts.js');
    const g = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'nerdr-unit-conflicts-')));
    try {
      const repo = path.join(root, 'repo');
      mkdirSync(repo);
      g(repo, 'init', '-q', '-b', 'main');
      g(repo, 'config', 'user.email', 't@example.com');
      g(repo, 'config', 'user.name', 'T');
      writeFileSync(path.join(repo, 'README'), 'one\n');
      g(repo, 'add', '.');
      g(repo, 'commit', '-qm', 'first');
      const wt = (branch: string, text: string) => {
        const where = path.join(root, branch);
        g(repo, 'worktree', 'add', '-q', '-b', branch, where, 'main');
        writeFileSync(path.join(where, 'README'), text);
        g(where, 'commit', '-qam', branch);
        return { name: branch, path: where, branch, base: 'main', repo, createdAt: '' };
      };
      const a = wt('a', 'one\na\n');
      const b = wt('b', 'one\nb\n');
      const before = g(repo, 'rev-parse', 'main');
      const r = await findConflicts([a, b], [2, 39, 5]);
      expect(r.worktrees.map((w) => w.intoBase)).toEqual([{ clean: true, conflicts: [] }, { clean: true, conflicts: [] }]);
      expect(r.pairs).toEqual([{ repo, a: 'a', b: 'b', aBranch: 'a', bBranch: 'b', shared: [{ path: 'README', a: 'committed', b: 'committed' }], merge: { clean: false, conflicts: ['README'] }, notMergeChecked: [] }]);
      expect(g(repo, 'rev-parse', 'main')).toBe(before);
      // an old git: the shared files, no merge tried, and why
      const old = await findConflicts([a, b], [2, 30, 0]);
      expect(old.mergeChecked).toBe(false);
      expect(old.notChecked).toMatch(/git 2\.30\.0 has no git merge-tree --write-tree/);
      expect(old.pairs[0]).toMatchObject({ shared: [{ path: 'README' }], merge: { clean: null } });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
