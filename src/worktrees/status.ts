// A checkout's changes, for the review panel and the worktree commands, in two rounds of git: one `git status --porcelain=v2
// --branch` (the files, the branch, its upstream and how far from it) beside the base's
// ahead/behind; then line counts for only the files listed. A refresh thus walks the tree once:
// in a repository of 50,000 files a full `git diff --numstat` beside `git status` cost as much
// as the status itself (docs/performance.md).

import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { aheadBehind, git, lastCommit, parseNumstat, repoRoot, type ChangedFile, type LastCommit } from './git.js';
import { NerdrError } from '../errors.js';

export interface StatusEntry {
  x: string;
  y: string;
  path: string;
  from: string | null;
  conflict: boolean;
  untracked: boolean;
}

export interface PorcelainV2 {
  /** The commit checked out, or null before the first commit. */
  oid: string | null;
  /** The branch, or null when detached. */
  branch: string | null;
  upstream: string | null;
  /** Ahead of / behind the upstream (only when it has one). */
  ahead: number | null;
  behind: number | null;
  entries: StatusEntry[];
}

/** The path after `n` space-separated fields (a path may hold spaces). */
function after(rec: string, n: number): string {
  let i = 0;
  for (let k = 0; k < n; k++) {
    i = rec.indexOf(' ', i) + 1;
    if (i === 0) return '';
  }
  return rec.slice(i);
}

/** `git status --porcelain=v2 -z --branch`: `# branch.*` headers, then 1/2/u/?/! records. */
export function parseStatusV2(text: string): PorcelainV2 {
  const out: PorcelainV2 = { oid: null, branch: null, upstream: null, ahead: null, behind: null, entries: [] };
  const parts = text.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const rec = parts[i]!;
    if (rec.startsWith('# ')) {
      const [key = '', ...rest] = rec.slice(2).split(' ');
      const value = rest.join(' ');
      if (key === 'branch.oid') out.oid = value === '(initial)' ? null : value;
      else if (key === 'branch.head') out.branch = value === '(detached)' ? null : value;
      else if (key === 'branch.upstream') out.upstream = value;
      else if (key === 'branch.ab') {
        const m = /^\+(\d+) -(\d+)$/.exec(value);
        if (m) [out.ahead, out.behind] = [Number(m[1]), Number(m[2])];
      }
      continue;
    }
    const kind = rec[0];
    if (kind === '1') out.entries.push({ x: rec[2]!, y: rec[3]!, path: after(rec, 8), from: null, conflict: false, untracked: false });
    else if (kind === '2') out.entries.push({ x: rec[2]!, y: rec[3]!, path: after(rec, 9), from: parts[++i] ?? null, conflict: false, untracked: false });
    else if (kind === 'u') out.entries.push({ x: rec[2]!, y: rec[3]!, path: after(rec, 10), from: null, conflict: true, untracked: false });
    else if (kind === '?') out.entries.push({ x: '?', y: '?', path: rec.slice(2), from: null, conflict: false, untracked: true });
  }
  return out;
}

/** The entries as the panel lists them: a file staged and changed again shows twice; counts to come. */
export function changesOf(entries: readonly StatusEntry[]): ChangedFile[] {
  const out: ChangedFile[] = [];
  for (const e of entries) {
    const none = { added: null, removed: null };
    if (e.untracked) out.push({ path: e.path, from: null, kind: 'untracked', status: '?', ...none });
    else if (e.conflict) out.push({ path: e.path, from: null, kind: 'unstaged', status: 'U', ...none });
    else {
      if (e.x !== '.') out.push({ path: e.path, from: e.from, kind: 'staged', status: e.x, ...none });
      if (e.y !== '.') out.push({ path: e.path, from: null, kind: 'unstaged', status: e.y, ...none });
    }
  }
  return out;
}

/** More paths than this: the counts are asked for the whole tree (one argument list has a limit). */
const MAX_PATHSPEC = 2000;
/** Untracked files whose lines are counted (a build's output left untracked must not stall a refresh). */
const MAX_COUNTED = 500;
const COUNT_LIMIT = 8 * 1024 * 1024;

async function countLines(file: string): Promise<number | null> {
  try {
    const st = await stat(file);
    if (!st.isFile() || st.size > COUNT_LIMIT) return null;
    const buf = await readFile(file);
    if (buf.includes(0)) return null;
    let n = 0;
    for (const b of buf) if (b === 10) n++;
    return buf.length > 0 && buf[buf.length - 1] !== 10 ? n + 1 : n;
  } catch {
    return null;
  }
}

async function numstat(top: string, cached: boolean, paths: string[]): Promise<Map<string, { added: number | null; removed: number | null }>> {
  if (paths.length === 0) return new Map();
  const args = ['diff', ...(cached ? ['--cached', '-M'] : []), '--numstat', '-z', '--no-color', '--no-ext-diff', '--'];
  const r = await git(top, paths.length > MAX_PATHSPEC ? args : [...args, ...paths], { env: { GIT_LITERAL_PATHSPECS: '1' } });
  return parseNumstat(r.stdout);
}

export interface CheckoutChanges {
  branch: string | null;
  head: string | null;
  /** The base compared with: the one given, else the branch's upstream. */
  base: string | null;
  ahead: number | null;
  behind: number | null;
  files: ChangedFile[];
}

/** The checkout at `top`: branch, files with counts, ahead/behind `base` (else its upstream). */
export async function checkoutChanges(top: string, base: string | null): Promise<CheckoutChanges> {
  const [st, ab] = await Promise.all([
    git(top, ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all']),
    base ? aheadBehind(top, base) : Promise.resolve(null),
  ]);
  if (st.code !== 0) throw new NerdrError(`git status failed in ${top}: ${st.stderr.trim() || `exit ${st.code}`}`, `run it there to see why: git -C ${JSON.stringify(top)} status`, { code: 'git_failed' });
  const s = parseStatusV2(st.stdout);
  const files = changesOf(s.entries);
  const staged = files.filter((f) => f.kind === 'staged').flatMap((f) => (f.from ? [f.from, f.path] : [f.path]));
  const unstaged = files.filter((f) => f.kind === 'unstaged').map((f) => f.path);
  const untracked = files.filter((f) => f.kind === 'untracked');
  const [sc, uc, lines] = await Promise.all([
    numstat(top, true, staged),
    numstat(top, false, unstaged),
    Promise.all(untracked.slice(0, MAX_COUNTED).map((f) => countLines(path.join(top, f.path)))),
  ]);
  for (const f of files) {
    const c = f.kind === 'staged' ? sc.get(f.path) : f.kind === 'unstaged' ? uc.get(f.path) : undefined;
    if (c) Object.assign(f, c);
  }
  untracked.slice(0, MAX_COUNTED).forEach((f, i) => {
    const n = lines[i] ?? null;
    f.added = n;
    f.removed = n === null ? null : 0;
  });
  const usingBase = base !== null;
  return {
    branch: s.branch,
    head: s.oid,
    base: usingBase ? base : s.upstream,
    ahead: usingBase ? (ab?.ahead ?? null) : s.ahead,
    behind: usingBase ? (ab?.behind ?? null) : s.behind,
    files,
  };
}

/**
 * The changes in the checkout at `dir`: one entry per file and side (a file staged and changed
 * again shows twice), untracked files one by one, with added/removed lines.
 */
export async function changedFiles(dir: string): Promise<ChangedFile[]> {
  return (await checkoutChanges((await repoRoot(dir)) ?? dir, null)).files;
}

export interface WorktreeStatus extends CheckoutChanges {
  /** The checkout's top folder. */
  path: string;
  lastCommit: LastCommit | null;
}

/** Everything `nerdr worktree ls` shows about one checkout; ahead/behind `base` when given. */
export async function worktreeStatus(dir: string, base: string | null = null): Promise<WorktreeStatus> {
  const top = await repoRoot(dir);
  if (!top) throw new NerdrError(`${dir} is not in a git repository`, 'run it in a git checkout (git init, or git clone)');
  const [changes, last] = await Promise.all([checkoutChanges(top, base), lastCommit(top)]);
  return { path: top, ...changes, lastCommit: last };
}
