// The git questions only the review panel asks: where the repository's own files are (to watch
// HEAD and the index), what the commits since the base changed, one
// file's diff, and which folders git ignores (not watched). Argument arrays, never a shell,
// through src/worktrees/git.ts's runner.

import path from 'node:path';
import { NerdrError } from '../errors.js';
import { git, parseNumstat, type ChangedFile } from '../worktrees/git.js';

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

/** The diff of one file as the panel lists it (no colour: the panel colours it). */
export async function fileDiff(top: string, f: Pick<ReviewFile, 'kind' | 'path' | 'from'>, base: string | null): Promise<string> {
  const common = ['--no-color', '--no-ext-diff'];
  const paths = f.from ? ['--', f.from, f.path] : ['--', f.path];
  let args: string[];
  if (f.kind === 'untracked') args = ['diff', ...common, '--no-index', '--', '/dev/null', f.path];
  else if (f.kind === 'staged') args = ['diff', '--cached', '-M', ...common, ...paths];
  else if (f.kind === 'committed') args = ['diff', '-M', ...common, `${base ?? 'HEAD'}...HEAD`, ...paths];
  else args = ['diff', ...common, ...paths];
  const r = await git(top, args);
  // --no-index exits 1 when the files differ
  if (r.code > 1 || (r.code === 1 && f.kind !== 'untracked')) throw new NerdrError(`git diff failed in ${top}: ${r.stderr.trim() || `exit ${r.code}`}`, `run it there to see why: git -C ${JSON.stringify(top)} ${args.join(' ')}`, { code: 'git_failed' });
  return r.stdout;
}

/** Everything that changed in one file since where the branch left `base` (or since HEAD): committed or not. */
export async function diffSince(top: string, file: string, base: string | null): Promise<string> {
  let from = 'HEAD';
  if (base) {
    const mb = await git(top, ['merge-base', base, 'HEAD']);
    if (mb.code === 0 && mb.stdout.trim()) from = mb.stdout.trim();
  }
  const r = await git(top, ['diff', '--no-color', '--no-ext-diff', from, '--', file]);
  return r.code === 0 ? r.stdout : '';
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
