// gatherReview and the step view against a real temporary git repository (git as a program).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatherReview } from '../../../src/review/data.js';
import { folderTarget } from '../../../src/review/controller.js';
import { stepRows } from '../../../src/review/show.js';
import { fileDiff, parseNameStatus } from '../../../src/review/git.js';
import { editorArgv, editorWindowArgs } from '../../../src/review/run.js';
import { folderPin } from '../../../src/cli/review.js';
import { reviewText } from '../../../src/review/print.js';

let root: string;
let repo: string;
let data: string;
const git = (...args: string[]): string => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'nerdr-review-'));
  repo = path.join(root, 'repo');
  data = path.join(root, 'data');
  mkdirSync(repo);
  mkdirSync(data);
  git('init', '-q', '-b', 'main');
  writeFileSync(path.join(repo, 'a.txt'), Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  writeFileSync(path.join(repo, 'gone.txt'), 'x\n');
  git('add', '.');
  git('commit', '-qm', 'init');
  git('checkout', '-qb', 'feat');
  writeFileSync(path.join(repo, 'c.txt'), 'committed\n');
  git('add', 'c.txt');
  git('commit', '-qm', 'c');
  writeFileSync(path.join(repo, 'a.txt'), Array.from({ length: 30 }, (_, i) => (i === 19 ? 'LINE 20' : `line ${i + 1}`)).join('\n') + '\n');
  writeFileSync(path.join(repo, 's.txt'), 'staged\n');
  git('add', 's.txt');
  git('rm', '-q', 'gone.txt');
  writeFileSync(path.join(repo, 'new file #1.txt'), 'one\ntwo\n');
  writeFileSync(
    path.join(data, 'walkthrough.jsonl'),
    [JSON.stringify({ time: 't1', window: '@7', cwd: repo, text: 'the change', file: 'a.txt', line: 20 }), JSON.stringify({ time: 't2', window: '@7', cwd: repo, text: 'unchanged file', file: 'c.txt', line: 1 })].join('\n') + '\n',
  );
  writeFileSync(path.join(data, 'why.jsonl'), JSON.stringify({ time: 't3', window: '@7', cwd: repo, text: 'why not' }) + '\n');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('gatherReview', () => {
  it('lists staged, unstaged, untracked and committed files with line counts, and ahead/behind the base', async () => {
    const d = await gatherReview({ ...folderTarget(repo), window: '@7', base: 'main' }, data);
    expect(d).toMatchObject({ repo, branch: 'feat', base: 'main', ahead: 1, behind: 0, problem: null });
    expect(d.files.map((f) => [f.kind, f.status, f.path, f.added, f.removed])).toEqual([
      ['staged', 'D', 'gone.txt', 0, 1],
      ['staged', 'A', 's.txt', 1, 0],
      ['unstaged', 'M', 'a.txt', 1, 1],
      ['untracked', '?', 'new file #1.txt', 2, 0],
      ['committed', 'A', 'c.txt', 1, 0],
    ]);
    expect(d.steps.map((s) => [s.text, s.file, s.line])).toEqual([
      ['the change', path.join(repo, 'a.txt'), 20],
      ['unchanged file', path.join(repo, 'c.txt'), 1],
    ]);
    expect(d.why.map((s) => s.text)).toEqual(['why not']);
    expect(reviewText(d)).toMatch(/branch {2}feat ← main {2}ahead 1, behind 0[\s\S]*untracked {2}\? new file #1\.txt {2}\+2 -0[\s\S]*1\. a\.txt:20 {2}the change[\s\S]*- why not/);
  });

  it('says when there is no repository or no folder', async () => {
    expect((await gatherReview(folderTarget(root), data)).problem).toBe(`no git repository at ${root}`);
    expect((await gatherReview(folderTarget(path.join(root, 'nope')), data)).problem).toMatch(/is gone/);
  });

  it('diffs each kind of file, an untracked one against nothing', async () => {
    const d = await gatherReview({ ...folderTarget(repo), base: 'main' }, data);
    const byPath = (p: string) => d.files.find((f) => f.path === p)!;
    expect((await fileDiff(repo, byPath('a.txt'), 'main')).text).toContain('+LINE 20');
    expect((await fileDiff(repo, byPath('s.txt'), 'main')).text).toContain('+staged');
    expect((await fileDiff(repo, byPath('new file #1.txt'), 'main')).text).toContain('+two');
    expect((await fileDiff(repo, byPath('c.txt'), 'main')).text).toContain('+committed');
  });

  it("shows a step's diff since the base, or the file itself when nothing is left to diff", async () => {
    const d = await gatherReview({ ...folderTarget(repo), window: '@7', base: 'main' }, data);
    const rows = await stepRows(d, d.steps[0]!);
    expect(rows.some((r) => r.kind === 'add' && r.text === '+LINE 20' && r.line === 20)).toBe(true);
    const none = await stepRows({ ...d, base: null }, d.steps[1]!);
    expect(none[0]!.text).toContain('no change to show');
    expect(none[1]).toMatchObject({ text: '1 committed', line: 1 });
  });

  it('parses renames in --name-status -z', () => {
    expect(parseNameStatus('R100\0old\0new\0M\0x\0')).toEqual([
      { status: 'R', from: 'old', path: 'new' },
      { status: 'M', from: null, path: 'x' },
    ]);
  });
});

describe('the editor', () => {
  it("is $VISUAL or $EDITOR split into words, with +LINE for editors that take it, the file last", () => {
    expect(editorArgv({ EDITOR: 'vim -u NONE' }, '/r/a b.ts', 12)).toEqual(['vim', '-u', 'NONE', '+12', '/r/a b.ts']);
    expect(editorArgv({ VISUAL: 'code -w', EDITOR: 'vi' }, '/r/x', 3)).toEqual(['code', '-w', '/r/x']);
    expect(editorArgv({}, '/r/$(touch pwned);', null)).toEqual(['vi', '/r/$(touch pwned);']);
  });
  it("runs as tmux new-window arguments after --, a folder's # and a trailing ; kept literal", () => {
    expect(editorWindowArgs('$1', '/r/#x', ['vi', '+3', '/r/#x/a;'])).toEqual(['new-window', '-d', '-P', '-F', '#{window_id}', '-t', '$1:', '-c', '/r/##x', '-n', 'a\\;', '--', 'vi', '+3', '/r/#x/a\\;']);
  });
});

describe('folderPin', () => {
  it('reads a target with a slash or a dot as a folder when one is there', () => {
    expect(folderPin('./repo', root)).toBe(repo);
    expect(folderPin('.', repo)).toBe(repo);
    expect(folderPin('repo', root)).toBeNull();
    expect(folderPin('./missing', root)).toBeNull();
    expect(folderPin(undefined)).toBeNull();
  });
});
