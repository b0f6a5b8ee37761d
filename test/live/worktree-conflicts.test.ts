// `nerdr worktree conflicts` and the SHARED column of `worktree ls`, on a real repository: the
// files two worktrees both changed and a predicted conflict, shown before anything is merged
// (git merge-tree works in memory: main, its checkout and the worktrees stay as they were).
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';
import { git, makeRepo } from './helpers/git-repo.js';

interface Report {
  mergeChecked: boolean;
  worktrees: { name: string; committed: string[]; uncommitted: string[]; intoBase: { clean: boolean | null; conflicts: string[] } }[];
  pairs: { a: string; b: string; shared: { path: string; a: string; b: string }[]; merge: { clean: boolean | null; conflicts: string[] }; notMergeChecked: string[] }[];
}

describe.skipIf(!tmuxAvailable)('worktree conflicts', () => {
  let env: LiveEnv;
  let root: string;
  let repo: string;
  let wtRoot: string;

  beforeAll(async () => {
    env = await startLiveEnv();
    ({ root, repo, wtRoot } = makeRepo('nerdr-wtc-', '.env\n'));
  });

  afterAll(async () => {
    await env?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('shows the files two worktrees share and the conflict their branches would have, before any merge', async () => {
    for (const b of ['feat/a', 'feat/b', 'feat/c']) {
      const r = await env.nerdrWith(['new', '-d', '--worktree', b, '--cmd', 'exec sleep 300'], { cwd: repo });
      expect(r.code, r.stderr).toBe(0);
    }
    await waitFor(async () => (await env.lsJson()).length === 3, { what: 'the three windows' });
    const at = (b: string) => path.join(wtRoot, b.replace('/', '-'));
    // a and b change the same line of README, each committed: each merges into main, not with the other
    writeFileSync(path.join(at('feat/a'), 'README'), 'one\nfrom a\n');
    git(at('feat/a'), 'commit', '-qam', 'a edits README');
    writeFileSync(path.join(at('feat/b'), 'README'), 'one\nfrom b\n');
    writeFileSync(path.join(at('feat/b'), 'b.txt'), 'b\n');
    git(at('feat/b'), 'add', '.');
    git(at('feat/b'), 'commit', '-qm', 'b edits README');
    // c changes README without committing: shared, but no merge can check it
    writeFileSync(path.join(at('feat/c'), 'README'), 'one\nfrom c\n');
    writeFileSync(path.join(at('feat/c'), 'c-new.txt'), 'c\n');
    const mainBefore = git(repo, 'rev-parse', 'main').trim();

    const r = await env.nerdrWith(['worktree', 'conflicts', '--json'], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    const rep = JSON.parse(r.stdout) as Report;
    expect(rep.mergeChecked).toBe(true);
    expect(rep.worktrees.map((w) => [w.name, w.intoBase.clean])).toEqual([['feat-a', true], ['feat-b', true], ['feat-c', true]]);
    expect(rep.worktrees.find((w) => w.name === 'feat-c')).toMatchObject({ committed: [], uncommitted: ['README', 'c-new.txt'] });
    const pair = (a: string, b: string) => rep.pairs.find((p) => p.a === a && p.b === b)!;
    expect(pair('feat-a', 'feat-b')).toMatchObject({ shared: [{ path: 'README', a: 'committed', b: 'committed' }], merge: { clean: false, conflicts: ['README'] }, notMergeChecked: [] });
    expect(pair('feat-a', 'feat-c')).toMatchObject({ shared: [{ path: 'README', a: 'committed', b: 'uncommitted' }], merge: { clean: true }, notMergeChecked: ['README'] });
    expect(pair('feat-b', 'feat-c').notMergeChecked).toEqual(['README']);

    const text = await env.nerdrWith(['worktree', 'conflicts'], { cwd: repo });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^feat-a \(feat\/a → main\); into main: merges cleanly; 1 committed, 0 uncommitted files$/m);
    expect(text.stdout).toMatch(/^feat-a and feat-b: 1 file changed by both: README \(committed\)$/m);
    expect(text.stdout).toMatch(/^ {2}feat\/a with feat\/b: CONFLICTS in README$/m);
    expect(text.stdout).toMatch(/^feat-c .*2 uncommitted files \(uncommitted changes not merge-checked\)$/m);
    expect(text.stdout).toMatch(/^ {2}uncommitted changes not merge-checked: README/m);

    // nothing was merged: main, its checkout and the worktrees are as they were
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(mainBefore);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(at('feat/c'), 'status', '--porcelain')).toBe(' M README\n?? c-new.txt\n');
    expect(git(repo, 'worktree', 'list').split('\n').filter(Boolean)).toHaveLength(4);

    // worktree ls: how many files each shares, and with whom in --json
    const ls = JSON.parse((await env.nerdrWith(['worktree', 'ls', '--json'], { cwd: repo })).stdout) as { name: string; shared: { path: string; with: string[] }[] }[];
    expect(Object.fromEntries(ls.map((w) => [w.name, w.shared]))).toEqual({
      'feat-a': [{ path: 'README', with: ['feat-b', 'feat-c'] }],
      'feat-b': [{ path: 'README', with: ['feat-a', 'feat-c'] }],
      'feat-c': [{ path: 'README', with: ['feat-a', 'feat-b'] }],
    });
    const lsText = await env.nerdrWith(['worktree', 'ls'], { cwd: repo });
    expect(lsText.stdout.split('\n')[0]).toMatch(/CHANGED\s+AHEAD\/BEHIND\s+SHARED\s+LAST COMMIT/);
    expect(lsText.stdout).toMatch(/^feat-b\s.*\s0\s+\+1 -0\s+1\s/m);
    // the review of a's window marks README as changed by the other agents too (their window names)
    const rev = JSON.parse((await env.nerdr('review', '--once', '--json', 'feat/a')).stdout) as { shared: { path: string; with: string[] }[] };
    expect(rev.shared).toEqual([{ path: 'README', with: ['feat/b', 'feat/c'] }]);
    expect((await env.nerdr('review', '--once', 'feat/a')).stdout).toMatch(/README.*also changed by feat\/b, feat\/c/);
  });

  it("when a worktree's agent ends a turn, a branch that would conflict gets ⚠ in its light and `conflict` in ls; resolved, it goes", async () => {
    const names = ['feat/x', 'feat/y'];
    const wins: string[] = [];
    for (const b of names) {
      const r = await env.nerdrWith(['new', 'demo', '-d', '--worktree', b, '--', '--auto', '0', '--work', '1'], { cwd: repo });
      expect(r.code, r.stderr).toBe(0);
      wins.push(r.stdout.trim());
    }
    const at = (b: string) => path.join(wtRoot, b.replace('/', '-'));
    for (const [i, b] of names.entries()) {
      // a file of their own (the first test's worktrees changed README)
      writeFileSync(path.join(at(b), 'shared.txt'), `from ${b}\n`);
      git(at(b), 'add', 'shared.txt');
      git(at(b), 'commit', '-qm', `${b} adds shared.txt`);
      void i;
    }
    const light = (w: string) => env.tmuxOk('show-options', '-wv', '-t', w, '@nerdr_light');
    const rows = async () => (await env.lsJson()) as unknown as { window: string; conflict: string | null; state: string }[];
    await waitFor(async () => (await rows()).filter((r) => wins.includes(r.window)).every((r) => r.state === 'idle'), { what: 'both agents idle' });
    // a turn of x ends: the repository's branches are checked
    await env.tmuxOk('send-keys', '-t', wins[0]!, 'go', 'Enter');
    await waitFor(async () => (await rows()).find((r) => r.window === wins[0])?.conflict === 'feat/y', { what: 'x to be marked as conflicting with feat/y', timeoutMs: 20_000 }).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify(await rows())}`);
    });
    expect((await rows()).find((r) => r.window === wins[1])?.conflict).toBe('feat/x');
    await waitFor(async () => (await light(wins[0]!)).includes('⚠'), { what: 'the ⚠ in the light' });
    // y's agent takes x's line: nothing conflicts any more, the marks go at its next turn's end
    writeFileSync(path.join(at('feat/y'), 'shared.txt'), 'from feat/x\n');
    git(at('feat/y'), 'commit', '-qam', 'y takes x');
    await env.tmuxOk('send-keys', '-t', wins[1]!, 'go', 'Enter');
    await waitFor(async () => (await rows()).filter((r) => wins.includes(r.window)).every((r) => r.conflict === null), { what: 'the marks to go', timeoutMs: 20_000 });
    // the light follows the row (tmux gets it a moment later)
    await waitFor(async () => !(await light(wins[0]!)).includes('⚠'), { what: 'the ⚠ to leave the light' });
  });
});
