// `nerdr worktree conflicts`: which files two worktrees of one repository both changed against
// their bases, and whether their branches merge (into the base, into each other) before anyone
// merges: `git merge-tree --write-tree` merges in memory, touching no ref, index or folder.
// Only commits can be merged that way: uncommitted work is listed, never merge-checked.

import { existsSync } from 'node:fs';
import { branchExists, git, type GitResult } from './git.js';
import { changedFiles } from './status.js';
import type { WorktreeRecord } from './registry.js';

/** `git merge-tree --write-tree` came with git 2.38. */
export const MERGE_TREE_GIT = [2, 38] as const;

export type MergeTreeSupport = { ok: true } | { ok: false; why: string };

/** Whether this git (its parsed version, null when unknown) can merge-check; when not, what is not checked. */
export function mergeTreeSupport(v: readonly number[] | null): MergeTreeSupport {
  const need = MERGE_TREE_GIT.join('.');
  if (!v) return { ok: false, why: `the git version is unknown, so merges are not checked (git merge-tree --write-tree needs git ${need}); only the shared files are listed` };
  if (v[0]! > MERGE_TREE_GIT[0] || (v[0] === MERGE_TREE_GIT[0] && v[1]! >= MERGE_TREE_GIT[1])) return { ok: true };
  return { ok: false, why: `git ${v.join('.')} has no git merge-tree --write-tree (git ${need} or newer), so merges are not checked: only the shared files are listed. Upgrade git to see conflicts before merging` };
}

/** A merge tried in memory: clean, or the conflicting files; `clean: null` when it was not tried, and why. */
export interface MergeCheck {
  clean: boolean | null;
  conflicts: string[];
  why?: string;
}

/**
 * `git merge-tree --write-tree --name-only -z --no-messages A B`: exit 0 clean, 1 conflicts;
 * stdout `TREE\0` then each conflicting path `\0` (a path may repeat), then an empty field.
 * Null for any other exit (an error: a ref that is not there, unrelated histories).
 */
export function parseMergeTree(r: Pick<GitResult, 'code' | 'stdout'>): { clean: boolean; tree: string; conflicts: string[] } | null {
  if (r.code !== 0 && r.code !== 1) return null;
  const [tree = '', ...rest] = r.stdout.split('\0');
  if (!/^[0-9a-f]{40,64}$/.test(tree.trim())) return null;
  const end = rest.indexOf('');
  const conflicts = [...new Set(end < 0 ? rest : rest.slice(0, end))];
  return { clean: r.code === 0, tree: tree.trim(), conflicts: r.code === 0 ? [] : conflicts };
}

/** Tries merging `theirs` into `ours` (any refs) in the repository at `dir`, in memory. */
export async function mergeTree(dir: string, ours: string, theirs: string): Promise<MergeCheck> {
  const r = await git(dir, ['merge-tree', '--write-tree', '--name-only', '-z', '--no-messages', ours, theirs]);
  const p = parseMergeTree(r);
  if (p) return { clean: p.clean, conflicts: p.conflicts };
  const words = (r.stderr.trim() || `exit ${r.code}`).replace(/^(fatal|error): /gm, '').split('\n')[0];
  return { clean: null, conflicts: [], why: `git merge-tree failed: ${words}` };
}

/** The ref a worktree's base means: the branch when there is one of that name (never a tag), else as given. */
export async function baseRef(rec: Pick<WorktreeRecord, 'repo' | 'base'>): Promise<string> {
  return (await branchExists(rec.repo, rec.base)) ? `refs/heads/${rec.base}` : rec.base;
}

/** What a worktree changed against its base: in commits of its branch, and not committed (staged, unstaged, untracked). */
export interface Touched {
  committed: string[];
  uncommitted: string[];
}

/** Both paths of a rename count: the old one is changed too. */
export async function touchedFiles(rec: WorktreeRecord): Promise<Touched> {
  const out: Touched = { committed: [], uncommitted: [] };
  if (await branchExists(rec.repo, rec.branch)) {
    const r = await git(rec.repo, ['diff', '--name-only', '-z', '--no-renames', '--no-ext-diff', `${await baseRef(rec)}...refs/heads/${rec.branch}`, '--']);
    if (r.code === 0) out.committed = r.stdout.split('\0').filter(Boolean);
  }
  if (existsSync(rec.path)) {
    const files = await changedFiles(rec.path);
    out.uncommitted = [...new Set(files.flatMap((f) => (f.from ? [f.from, f.path] : [f.path])))];
  }
  return out;
}

/** Every pair of records of the same repository, each once, in the order given. */
export function pairsOf<T extends { repo: string }>(list: readonly T[]): [T, T][] {
  const out: [T, T][] = [];
  for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) if (list[i]!.repo === list[j]!.repo) out.push([list[i]!, list[j]!]);
  return out;
}

export type Side = 'committed' | 'uncommitted' | 'both';

export interface SharedFile {
  path: string;
  /** How each of the two changed it. */
  a: Side;
  b: Side;
}

function sideOf(t: Touched, file: string): Side | null {
  const c = t.committed.includes(file);
  const u = t.uncommitted.includes(file);
  return c && u ? 'both' : c ? 'committed' : u ? 'uncommitted' : null;
}

/** The files both changed, sorted, with how each changed it. */
export function sharedFiles(a: Touched, b: Touched): SharedFile[] {
  const inB = new Set([...b.committed, ...b.uncommitted]);
  const all = [...new Set([...a.committed, ...a.uncommitted])].filter((f) => inB.has(f)).sort();
  return all.map((f) => ({ path: f, a: sideOf(a, f)!, b: sideOf(b, f)! }));
}

export interface WorktreeConflicts {
  name: string;
  branch: string;
  base: string;
  repo: string;
  path: string;
  exists: boolean;
  committed: string[];
  uncommitted: string[];
  /** Its branch merged into its base. */
  intoBase: MergeCheck;
}

export interface PairConflicts {
  repo: string;
  a: string;
  b: string;
  aBranch: string;
  bBranch: string;
  shared: SharedFile[];
  /** The two branches merged into each other. */
  merge: MergeCheck;
  /** Shared files that one side has not committed: the merge check cannot see that change. */
  notMergeChecked: string[];
}

export interface ConflictsReport {
  /** The git version text, e.g. "2.39.5". */
  git: string;
  mergeChecked: boolean;
  /** What is not checked on this git, or null. */
  notChecked: string | null;
  worktrees: WorktreeConflicts[];
  pairs: PairConflicts[];
}

/**
 * The files each pair shares and, when `merge` is asked and git can, the merge checks. Without
 * `merge` (for `worktree ls`) no merge-tree runs.
 */
export async function findConflicts(records: readonly WorktreeRecord[], gitVersion: readonly number[] | null, opts: { merge: boolean } = { merge: true }): Promise<ConflictsReport> {
  const support = mergeTreeSupport(gitVersion);
  const check = opts.merge && support.ok;
  const notTried: MergeCheck = { clean: null, conflicts: [], why: support.ok ? 'not asked' : support.why };
  const touched = await Promise.all(records.map((r) => touchedFiles(r)));
  const worktrees = await Promise.all(
    records.map(async (rec, i): Promise<WorktreeConflicts> => {
      const has = await branchExists(rec.repo, rec.branch);
      const intoBase = !check ? notTried : has ? await mergeTree(rec.repo, await baseRef(rec), `refs/heads/${rec.branch}`) : { clean: null, conflicts: [], why: `the branch ${rec.branch} is gone` };
      return { name: rec.name, branch: rec.branch, base: rec.base, repo: rec.repo, path: rec.path, exists: existsSync(rec.path), ...touched[i]!, intoBase };
    }),
  );
  const index = new Map(records.map((r, i) => [r, i]));
  const pairs = await Promise.all(
    pairsOf(records).map(async ([a, b]): Promise<PairConflicts> => {
      const ta = touched[index.get(a)!]!;
      const tb = touched[index.get(b)!]!;
      const shared = sharedFiles(ta, tb);
      const both = (await branchExists(a.repo, a.branch)) && (await branchExists(b.repo, b.branch));
      const merge = !check ? notTried : both ? await mergeTree(a.repo, `refs/heads/${a.branch}`, `refs/heads/${b.branch}`) : { clean: null, conflicts: [], why: 'a branch is gone' };
      const notMergeChecked = shared.filter((s) => s.a !== 'committed' || s.b !== 'committed').map((s) => s.path);
      return { repo: a.repo, a: a.name, b: b.name, aBranch: a.branch, bBranch: b.branch, shared, merge, notMergeChecked };
    }),
  );
  return { git: gitVersion?.join('.') ?? 'unknown', mergeChecked: check, notChecked: support.ok ? null : support.why, worktrees, pairs };
}

/** For `worktree ls`: per worktree path, the files it shares with others and whose they are. */
export function sharedByWorktree(report: ConflictsReport): Map<string, { path: string; with: string[] }[]> {
  const byName = new Map<string, Map<string, Set<string>>>();
  const add = (who: string, file: string, other: string) => {
    const files = byName.get(who) ?? new Map<string, Set<string>>();
    byName.set(who, files);
    files.set(file, (files.get(file) ?? new Set()).add(other));
  };
  for (const p of report.pairs) {
    for (const s of p.shared) {
      add(`${p.repo}\0${p.a}`, s.path, p.b);
      add(`${p.repo}\0${p.b}`, s.path, p.a);
    }
  }
  const out = new Map<string, { path: string; with: string[] }[]>();
  for (const w of report.worktrees) {
    const files = byName.get(`${w.repo}\0${w.name}`);
    out.set(w.path, files ? [...files].sort(([x], [y]) => (x < y ? -1 : 1)).map(([f, who]) => ({ path: f, with: [...who].sort() })) : []);
  }
  return out;
}
