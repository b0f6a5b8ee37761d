// git, run as a program with argument arrays (never a shell), and the few questions nerdr asks
// it: where a repository is, what changed in a checkout, how far a branch is from its base.
// Errors carry git's own words. A checkout's changed files are in status.ts.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { NerdrError } from '../errors.js';

/** Worktrees need `git worktree remove` (and `list --porcelain`): git 2.17. */
export const MIN_GIT = [2, 17] as const;

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `git -C cwd args…` (`input` on its stdin). Never rejects on a non-zero exit; a missing git is a NerdrError. */
export async function git(cwd: string, args: string[], opts: { env?: Record<string, string>; input?: string } = {}): Promise<GitResult> {
  try {
    // loaded on first use: execa is a third of the modules a supervisor would load at its start,
    // and a supervisor revived by tmux must be ready within 2 s (docs/performance.md)
    const { execa } = await import('execa');
    const r = await execa('git', ['-C', cwd, ...args], {
      reject: false,
      stripFinalNewline: false,
      maxBuffer: 256 * 1024 * 1024,
      // git's words in English and plain, whatever the user's terminal asks for
      env: { LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', ...opts.env },
      ...(opts.input !== undefined ? { input: opts.input } : { stdin: 'ignore' as const }),
    });
    // reject: false hands a failed spawn back as a result with the errno code
    if ((r as { code?: string }).code === 'ENOENT') throw gitMissing();
    return { code: r.exitCode ?? 1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
  } catch (err) {
    if (err instanceof NerdrError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw gitMissing();
    throw err;
  }
}

/** Like git(), but a non-zero exit is an error with git's own words. */
export async function gitOk(cwd: string, args: string[], what?: string, opts: { input?: string } = {}): Promise<string> {
  const r = await git(cwd, args, opts);
  if (r.code !== 0) throw new GitError(what ?? `git ${args[0]}`, r);
  return r.stdout;
}

export class GitError extends NerdrError {
  constructor(what: string, readonly result: GitResult, fix?: string) {
    super(`${what} failed: ${gitWords(result)}`, fix);
    this.name = 'GitError';
  }
}

/** What git said, on one line or a few: its stderr without `fatal: ` / `error: ` prefixes. */
export function gitWords(r: GitResult): string {
  const text = (r.stderr.trim() || r.stdout.trim() || `exit ${r.code}`).replace(/^(fatal|error): /gm, '');
  return text.split('\n').slice(0, 6).join('; ');
}

function gitMissing(): NerdrError {
  return new NerdrError('git is not installed (no `git` on PATH)', `install git ${MIN_GIT.join('.')} or newer: apt install git / brew install git`);
}

/** `git version 2.39.5` → [2, 39, 5]; null when no version is in the text. */
export function parseGitVersion(text: string): [number, number, number] | null {
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null;
}

export function gitVersionOk(v: readonly number[]): boolean {
  return v[0]! > MIN_GIT[0] || (v[0] === MIN_GIT[0] && v[1]! >= MIN_GIT[1]);
}

/** The installed git's version text, e.g. "2.39.5"; throws with the fix when missing or too old. */
export async function checkGitVersion(): Promise<string> {
  const r = await git('.', ['version']);
  const v = parseGitVersion(r.stdout);
  if (!v) throw new NerdrError(`\`git version\` printed no version (${gitWords(r)})`, `install git ${MIN_GIT.join('.')} or newer`);
  const text = v.join('.');
  if (!gitVersionOk(v)) {
    throw new NerdrError(`git ${text} found; nerdr's worktrees need git ${MIN_GIT.join('.')} or newer`, 'upgrade git: apt install git / brew upgrade git');
  }
  return text;
}

/** The top folder of the checkout holding `dir` (a worktree's own), or null outside a repository. */
export async function repoRoot(dir: string): Promise<string | null> {
  const r = await git(dir, ['rev-parse', '--show-toplevel']);
  return r.code === 0 ? r.stdout.trim() : null;
}

/** The main checkout of the repository holding `dir` (the first of `git worktree list`). */
export async function mainCheckout(dir: string): Promise<string | null> {
  const r = await git(dir, ['worktree', 'list', '--porcelain', '-z']);
  if (r.code !== 0) {
    // git < 2.36 has no -z: its paths end at the line break
    const plain = await git(dir, ['worktree', 'list', '--porcelain']);
    if (plain.code !== 0) return null;
    return parseWorktreeList(plain.stdout.replace(/\n/g, '\0'))[0]?.path ?? null;
  }
  return parseWorktreeList(r.stdout)[0]?.path ?? null;
}

export interface WorktreeEntry {
  path: string;
  head: string;
  /** Short branch name, or null when detached. */
  branch: string | null;
  bare: boolean;
}

/** `git worktree list --porcelain -z`: records of NUL-ended lines, separated by an empty one. */
export function parseWorktreeList(text: string): WorktreeEntry[] {
  const out: WorktreeEntry[] = [];
  let cur: WorktreeEntry | null = null;
  for (const line of text.split('\0')) {
    if (line === '') {
      if (cur) out.push(cur);
      cur = null;
      continue;
    }
    const sp = line.indexOf(' ');
    const key = sp < 0 ? line : line.slice(0, sp);
    const value = sp < 0 ? '' : line.slice(sp + 1);
    if (key === 'worktree') cur = { path: value, head: '', branch: null, bare: false };
    else if (!cur) continue;
    else if (key === 'HEAD') cur.head = value;
    else if (key === 'branch') cur.branch = value.replace(/^refs\/heads\//, '');
    else if (key === 'bare') cur.bare = true;
  }
  if (cur) out.push(cur);
  return out;
}

export async function listWorktrees(dir: string): Promise<WorktreeEntry[]> {
  const r = await git(dir, ['worktree', 'list', '--porcelain', '-z']);
  if (r.code === 0) return parseWorktreeList(r.stdout);
  return parseWorktreeList((await gitOk(dir, ['worktree', 'list', '--porcelain'], 'git worktree list')).replace(/\n/g, '\0'));
}

/** The branch `dir` is on, or the commit it is at when detached; null in a repository without commits on a detached HEAD. */
export async function currentRef(dir: string): Promise<string | null> {
  const b = await git(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  if (b.code === 0 && b.stdout.trim()) return b.stdout.trim();
  const c = await git(dir, ['rev-parse', '--verify', '--quiet', 'HEAD']);
  return c.code === 0 ? c.stdout.trim() : null;
}

export async function branchExists(dir: string, branch: string): Promise<boolean> {
  return (await git(dir, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`])).code === 0;
}

/** Throws with git's own words when git would refuse `branch` as a branch name. */
export async function checkBranchName(dir: string, branch: string): Promise<void> {
  const r = await git(dir, ['check-ref-format', '--branch', branch]);
  if (r.code !== 0) {
    const words = r.stderr.trim() ? gitWords(r) : 'git check-ref-format refuses it';
    throw new NerdrError(`git refuses the branch name ${JSON.stringify(branch)}: ${words}`, 'choose another name (`git check-ref-format --branch NAME` tells which git accepts)');
  }
}

export interface LastCommit {
  hash: string;
  subject: string;
  author: string;
  /** Unix seconds. */
  time: number;
}

/** HEAD's commit in `dir`, or null before the first commit. */
export async function lastCommit(dir: string): Promise<LastCommit | null> {
  const r = await git(dir, ['log', '-1', '--no-color', '--format=%H%x00%s%x00%an%x00%ct']);
  if (r.code !== 0 || !r.stdout.trim()) return null;
  const [hash = '', subject = '', author = '', time = '0'] = r.stdout.replace(/\n$/, '').split('\0');
  return { hash, subject, author, time: Number(time) };
}

/** Commits on HEAD not in `base` (ahead) and in `base` not on HEAD (behind); null when base does not resolve. */
export async function aheadBehind(dir: string, base: string): Promise<{ ahead: number; behind: number } | null> {
  const r = await git(dir, ['rev-list', '--left-right', '--count', `${base}...HEAD`, '--']);
  if (r.code !== 0) return null;
  const [behind = '0', ahead = '0'] = r.stdout.trim().split(/\s+/);
  return { ahead: Number(ahead), behind: Number(behind) };
}

/** Commits of `branch` that no other branch (local or remote) holds: what deleting it would lose. */
export async function commitsOnlyOn(dir: string, branch: string): Promise<string[]> {
  const r = await git(dir, ['rev-list', '--oneline', '--no-color', `refs/heads/${branch}`, '--not', `--exclude=${branch}`, '--branches', '--remotes', '--']);
  if (r.code !== 0) return [];
  return r.stdout.split('\n').filter(Boolean);
}

/**
 * The commits the checkout at `dir` holds on a detached HEAD that no ref of the repository
 * (branches, tags, remotes, stash, … as `main` sees them) reaches: once the checkout is removed,
 * only `git fsck` finds them. Empty when HEAD is on a branch. `--oneline` lines.
 */
export async function commitsOnlyOnDetachedHead(dir: string, main: string): Promise<string[]> {
  if ((await git(dir, ['symbolic-ref', '--quiet', 'HEAD'])).code === 0) return [];
  const head = await git(dir, ['rev-parse', '--verify', '--quiet', 'HEAD']);
  if (head.code !== 0) return [];
  // run in the main checkout: refs/bisect and refs/worktree of `dir` go with it
  const r = await git(main, ['rev-list', '--oneline', '--no-color', head.stdout.trim(), '--not', '--glob=refs/*', '--']);
  if (r.code !== 0) throw new GitError('git rev-list (the commits of a detached HEAD)', r);
  return r.stdout.split('\n').filter(Boolean);
}

/** Ignored files of the checkout at `dir`, a wholly ignored folder as one `build/` entry. */
export async function ignoredFiles(dir: string): Promise<string[]> {
  const out = await gitOk(dir, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], 'git ls-files --ignored');
  return out.split('\0').filter(Boolean);
}

export type Operation = 'merge' | 'rebase' | 'cherry-pick' | 'revert' | 'bisect' | 'am';

/** The files git keeps in a checkout's git folder while each operation is under way. */
const OPERATION_FILES: readonly [string, Operation][] = [
  ['MERGE_HEAD', 'merge'],
  ['rebase-merge', 'rebase'],
  ['rebase-apply/applying', 'am'],
  ['rebase-apply', 'rebase'],
  ['CHERRY_PICK_HEAD', 'cherry-pick'],
  ['REVERT_HEAD', 'revert'],
  ['sequencer', 'cherry-pick'],
  ['BISECT_START', 'bisect'],
];

/** The operation under way, from which of OPERATION_FILES exist (their names); null when none. */
export function operationFrom(present: ReadonlySet<string>): Operation | null {
  return OPERATION_FILES.find(([file]) => present.has(file))?.[1] ?? null;
}

/** What the user has under way in the checkout at `dir`: a merge, rebase, cherry-pick, revert, bisect or am; null when none. */
export async function operationInProgress(dir: string): Promise<Operation | null> {
  const files = OPERATION_FILES.map(([f]) => f);
  const out = await gitOk(dir, ['rev-parse', ...files.flatMap((f) => ['--git-path', f])], 'git rev-parse --git-path');
  const paths = out.split('\n').filter(Boolean);
  return operationFrom(new Set(files.filter((_, i) => paths[i] !== undefined && existsSync(path.resolve(dir, paths[i]!)))));
}

/** git's own message for merging `branch` into the branch `dir` is on, with the branch's short name ("Merge branch 'docs/readme'"). */
export async function mergeMessage(dir: string, branch: string): Promise<string> {
  const oid = (await gitOk(dir, ['rev-parse', '--verify', `refs/heads/${branch}^{commit}`], 'git rev-parse')).trim();
  // the line `git merge` itself writes for a branch, but with the name as given, not refs/heads/…
  return (await gitOk(dir, ['fmt-merge-msg'], 'git fmt-merge-msg', { input: `${oid}\t\tbranch '${branch}' of .\n` })).trimEnd();
}

export type ChangeKind = 'staged' | 'unstaged' | 'untracked';

export interface ChangedFile {
  /** Relative to the checkout's top folder, as git names it. */
  path: string;
  /** The old path of a rename or copy. */
  from: string | null;
  kind: ChangeKind;
  /** git's status letter for this side: M, A, D, R, C, T, U (conflict), ? (untracked). */
  status: string;
  /** Lines added and removed; null for a binary file (or an untracked one too large to count). */
  added: number | null;
  removed: number | null;
}

interface NumStat {
  added: number | null;
  removed: number | null;
}

/** `git diff --numstat -z`: `A\tR\tpath\0`, or `A\tR\t\0from\0to\0` for a rename; `-` for binary. */
export function parseNumstat(text: string): Map<string, NumStat> {
  const out = new Map<string, NumStat>();
  const parts = text.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const rec = parts[i]!;
    if (!rec) continue;
    const m = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(rec);
    if (!m) continue;
    let file = m[3]!;
    if (file === '') {
      i += 2; // from, to
      file = parts[i] ?? '';
    }
    out.set(file, { added: m[1] === '-' ? null : Number(m[1]), removed: m[2] === '-' ? null : Number(m[2]) });
  }
  return out;
}

