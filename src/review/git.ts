// The git questions only the review panel asks: where the repository's own files are (to watch
// HEAD and the index), what the commits since the base changed, one
// file's diff, and which folders git ignores (not watched). Argument arrays, never a shell,
// through src/worktrees/git.ts's runner.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { NerdrError } from '../errors.js';
import { git, parseNumstat, type ChangedFile } from '../worktrees/git.js';
import { TextCap, type BoundedText } from './bounded-text.js';

export interface Repo {
  /** The checkout's top folder. */
  top: string;
  /** Its git dir (a worktree's own under <main>/.git/worktrees/…): HEAD and index live there. */
  gitDir: string;
}

/** The repository holding `dir`, or null when there is none (or `dir` is gone). */
export async function findRepo(dir: string): Promise<Repo | null> {
  const r = await git(dir, ['rev-parse', '--show-toplevel', '--absolute-git-dir']).catch(() => null);
  if (!r || r.code !== 0) return null;
  const [top = '', gitDir = ''] = r.stdout.replace(/\n$/, '').split('\n');
  return top && gitDir ? { top, gitDir } : null;
}

/** `git diff --name-status -z`: `S\0path\0`, or `R100\0from\0to\0`. */
export function parseNameStatus(text: string): { status: string; path: string; from: string | null }[] {
  const parts = text.split('\0');
  const out: { status: string; path: string; from: string | null }[] = [];
  for (let i = 0; i < parts.length; i++) {
    const s = parts[i]!;
    if (!/^[A-Z]/.test(s)) continue;
    if (s[0] === 'R' || s[0] === 'C') {
      const from = parts[++i] ?? '';
      out.push({ status: s[0], path: parts[++i] ?? '', from });
    } else out.push({ status: s[0]!, path: parts[++i] ?? '', from: null });
  }
  return out;
}

export type ReviewFileKind = ChangedFile['kind'] | 'committed';
export interface ReviewFile extends Omit<ChangedFile, 'kind'> {
  kind: ReviewFileKind;
}

/** The files the commits since `base` changed (`base...HEAD`: from where the branch left it). */
export async function committedFiles(top: string, base: string): Promise<ReviewFile[]> {
  const range = `${base}...HEAD`;
  const [names, nums] = await Promise.all([
    git(top, ['diff', '--name-status', '-z', '-M', '--no-color', '--no-ext-diff', range, '--']),
    git(top, ['diff', '--numstat', '-z', '-M', '--no-color', '--no-ext-diff', range, '--']),
  ]);
  if (names.code !== 0) return [];
  const counts = parseNumstat(nums.stdout);
  return parseNameStatus(names.stdout).map((e) => ({ ...e, kind: 'committed' as const, ...(counts.get(e.path) ?? { added: null, removed: null }) }));
}

/**
 * `git -C top args…` whose output is kept up to the panel's bound (bounded-text.ts) and only
 * counted past it: a diff of any size costs the panel at most the bound.
 */
export function gitCapped(top: string, args: string[], cap = new TextCap()): Promise<{ code: number } & BoundedText & { stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-C', top, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' },
    });
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => cap.push(b));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (t: string) => {
      stderr = (stderr + t).slice(-8192);
    });
    child.on('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' ? new NerdrError('git is not installed (no `git` on PATH)', 'install git: apt install git / brew install git') : err),
    );
    child.on('close', (code) => resolve({ code: code ?? 1, stderr, ...cap.result() }));
  });
}

/** The diff of one file as the panel lists it (no colour: the panel colours it), bounded. */
export async function fileDiff(top: string, f: Pick<ReviewFile, 'kind' | 'path' | 'from'>, base: string | null): Promise<BoundedText> {
  const common = ['--no-color', '--no-ext-diff'];
  const paths = f.from ? ['--', f.from, f.path] : ['--', f.path];
  let args: string[];
  if (f.kind === 'untracked') args = ['diff', ...common, '--no-index', '--', '/dev/null', f.path];
  else if (f.kind === 'staged') args = ['diff', '--cached', '-M', ...common, ...paths];
  else if (f.kind === 'committed') args = ['diff', '-M', ...common, `${base ?? 'HEAD'}...HEAD`, ...paths];
  else args = ['diff', ...common, ...paths];
  const r = await gitCapped(top, args);
  // --no-index exits 1 when the files differ
  if (r.code > 1 || (r.code === 1 && f.kind !== 'untracked')) throw new NerdrError(`git diff failed in ${top}: ${r.stderr.trim() || `exit ${r.code}`}`, `run it there to see why: git -C ${JSON.stringify(top)} ${args.join(' ')}`, { code: 'git_failed' });
  return { text: r.text, more: r.more };
}

/** Everything that changed in one file since where the branch left `base` (or since HEAD): committed or not; bounded. */
export async function diffSince(top: string, file: string, base: string | null): Promise<BoundedText> {
  let from = 'HEAD';
  if (base) {
    const mb = await git(top, ['merge-base', base, 'HEAD']);
    if (mb.code === 0 && mb.stdout.trim()) from = mb.stdout.trim();
  }
  const r = await gitCapped(top, ['diff', '--no-color', '--no-ext-diff', from, '--', file]);
  return r.code === 0 ? { text: r.text, more: r.more } : { text: '', more: 0 };
}

/** Folders git ignores (node_modules/, dist/…), absolute: the watcher leaves them out. */
export async function ignoredFolders(top: string): Promise<string[]> {
  const r = await git(top, ['ls-files', '--others', '--ignored', '--exclude-standard', '--directory', '-z']);
  if (r.code !== 0) return [];
  return r.stdout
    .split('\0')
    .filter((p) => p.endsWith('/'))
    .map((p) => path.join(top, p.slice(0, -1)));
}
