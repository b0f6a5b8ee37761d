// Issue 26 "Bounded reads", the panel's side: a walkthrough step may name any path (an agent
// wrote it), and a diff may be of any size. The panel reads only regular files inside the
// window's folder, never blocks on a FIFO's open, and keeps a bounded part of a diff.

import { execFileSync } from 'node:child_process';
import { constants, mkdtempSync, mkdirSync, openSync, closeSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatherReview } from '../../../src/review/data.js';
import { folderTarget } from '../../../src/review/controller.js';
import { stepRows } from '../../../src/review/show.js';
import { fileDiff } from '../../../src/review/git.js';
import { MAX_DIFF_BYTES, MAX_DIFF_LINES, TextCap } from '../../../src/review/bounded-text.js';
import type { ReviewNote } from '../../../src/review/notes.js';

let root: string;
let repo: string;
let data: string;
const fifos: string[] = [];
const git = (...args: string[]): string => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
const step = (file: string, line: number | null = 1): ReviewNote => ({ kind: 'step', time: 't', text: 'look', file, line });

/** The promise's value, or 'blocked' if it is not there within `ms` (a FIFO's open never returns by itself). */
function within<T>(p: Promise<T>, ms = 3000): Promise<T | 'blocked'> {
  return Promise.race([p, new Promise<'blocked'>((r) => setTimeout(() => r('blocked'), ms).unref())]);
}

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'nerdr-bounded-'));
  repo = path.join(root, 'repo');
  data = path.join(root, 'data');
  mkdirSync(repo);
  mkdirSync(data);
  git('init', '-q', '-b', 'main');
  writeFileSync(path.join(repo, 'big.txt'), 'x\n');
  writeFileSync(path.join(repo, 'ok.txt'), 'one\ntwo\n');
  git('add', '.');
  git('commit', '-qm', 'init');
  // 60,000 changed lines: more than the panel keeps
  writeFileSync(path.join(repo, 'big.txt'), Array.from({ length: 60_000 }, (_, i) => `changed line ${i + 1}`).join('\n') + '\n');
  for (const name of ['pipe-a', 'pipe-b']) {
    const f = path.join(repo, name);
    execFileSync('mkfifo', [f]);
    fifos.push(f);
  }
  symlinkSync('/dev/zero', path.join(repo, 'zero-link'));
  symlinkSync(path.join(root, 'outside.txt'), path.join(repo, 'out-link'));
  writeFileSync(path.join(root, 'outside.txt'), 'secret\n');
});

afterAll(() => {
  // a reader stuck in a FIFO's open (the code before the fix) is let go: a writer opens it
  for (const f of fifos) {
    try {
      closeSync(openSync(f, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // no reader waits on it
    }
  }
  rmSync(root, { recursive: true, force: true });
});

describe('a walkthrough step on what is not a regular file inside the folder', () => {
  it('a FIFO in the folder is refused at once, without opening it for long', async () => {
    const d = await gatherReview({ ...folderTarget(repo), window: '@1' }, data);
    const rows = await within(Promise.all(fifos.map((f) => stepRows(d, step(f)))));
    expect(rows).not.toBe('blocked');
    for (const r of rows as Awaited<ReturnType<typeof stepRows>>[]) expect(r).toEqual([expect.objectContaining({ kind: 'note', text: expect.stringMatching(/FIFO, not a regular file/) })]);
  });

  it('/dev/zero is refused: outside the folder; a link to it shows as the link git sees', async () => {
    const d = await gatherReview({ ...folderTarget(repo), window: '@1' }, data);
    const zero = await within(stepRows(d, step('/dev/zero')));
    expect(zero).toEqual([expect.objectContaining({ kind: 'note', text: expect.stringMatching(/outside the window's folder/) })]);
    // an untracked link: git diffs the link's text (its target's name), never what it points at
    const link = await within(stepRows(d, step(path.join(repo, 'zero-link'))));
    expect(link).not.toBe('blocked');
    expect((link as { text: string }[]).map((r) => r.text)).toContain('+/dev/zero');
  });

  it('a file outside the folder is not shown, even through a link inside it; one inside is', async () => {
    const d = await gatherReview({ ...folderTarget(repo), window: '@1' }, data);
    const out = await stepRows(d, step(path.join(root, 'outside.txt')));
    expect(out.map((r) => r.text).join('\n')).not.toContain('secret');
    const viaLink = await stepRows(d, step(path.join(repo, 'out-link')));
    expect(viaLink.map((r) => r.text).join('\n')).not.toContain('secret');
    const ok = await stepRows(d, step(path.join(repo, 'ok.txt'), 2));
    expect(ok.map((r) => r.text)).toEqual(['ok.txt (no change to show: the file as it is)', '1 one', '2 two']);
  });
});

describe('a diff larger than the panel keeps', () => {
  it('keeps its first lines and counts the rest', async () => {
    const d = await fileDiff(repo, { kind: 'unstaged', path: 'big.txt', from: null }, null);
    const lines = d.text.split('\n').length - 1;
    expect(lines).toBe(MAX_DIFF_LINES);
    // the diff: 4 header lines, a hunk, one removal, 60,000 additions
    expect(d.more).toBe(4 + 1 + 1 + 60_000 - MAX_DIFF_LINES);
  });

  it("a step on it shows the kept part and '… N more lines'", async () => {
    const g = await gatherReview({ ...folderTarget(repo), window: '@1' }, data);
    const rows = await stepRows(g, step(path.join(repo, 'big.txt'), 10));
    expect(rows.length).toBeLessThanOrEqual(MAX_DIFF_LINES + 1);
    expect(rows[rows.length - 1]).toMatchObject({ kind: 'note', text: expect.stringMatching(/^… \d+ more lines/) });
  });
});

describe('TextCap', () => {
  const run = (chunks: string[], lines: number, bytes: number) => {
    const c = new TextCap(lines, bytes);
    for (const ch of chunks) c.push(Buffer.from(ch));
    return c.result();
  };
  it('keeps whole lines up to the line cap, across chunks, and counts the rest', () => {
    expect(run(['a\nb', '\nc\nd\n'], 2, 100)).toEqual({ text: 'a\nb\n', more: 2 });
    expect(run(['a\nb\nc'], 2, 100)).toEqual({ text: 'a\nb\n', more: 1 });
    expect(run(['a\nb\n'], 2, 100)).toEqual({ text: 'a\nb\n', more: 0 });
    expect(run(['a', '\n'], 5, 100)).toEqual({ text: 'a\n', more: 0 });
  });
  it('cuts a line past the byte cap; the cut line counts as shown', () => {
    expect(run(['abcdef', 'gh\nnext\n'], 10, 4)).toEqual({ text: 'abcd', more: 1 });
    expect(run(['ab\ncdefgh\nx'], 10, 5)).toEqual({ text: 'ab\ncd', more: 1 });
  });
  it('holds at most the cap whatever it is fed', () => {
    const c = new TextCap();
    const chunk = Buffer.alloc(1024 * 1024, 'y');
    for (let i = 0; i < 32; i++) c.push(chunk);
    const r = c.result();
    expect(r.text.length).toBe(MAX_DIFF_BYTES);
    expect(r.more).toBe(0);
  });
});
