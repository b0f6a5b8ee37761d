// `nerdr worktree ls | rm | merge`: what each worktree nerdr made holds, and the refusals that
// keep work from being lost. The CLI (src/cli/worktree.ts) parses and prints; this decides.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { NerdrError } from '../errors.js';
import type { AgentRow } from '../protocol/index.js';
import { aheadBehind, branchExists, commitsOnlyOn, currentRef, git, GitError, gitOk, lastCommit, type ChangedFile, type LastCommit } from './git.js';
import { changedFiles } from './status.js';
import type { WorktreeRecord } from './registry.js';

export interface WorktreeWindow {
  name: string;
  window: string;
  session: string;
  state: string;
}

export interface WorktreeInfo extends WorktreeRecord {
  /** False when the folder is gone (removed by hand): `nerdr worktree rm` forgets it. */
  exists: boolean;
  /** The agent window in it (the first, when several), or null. */
  window: WorktreeWindow | null;
  windows: WorktreeWindow[];
  files: ChangedFile[];
  /** Changed files, each counted once. */
  changed: number;
  ahead: number | null;
  behind: number | null;
  lastCommit: LastCommit | null;
}

function inside(dir: string, root: string): boolean {
  return dir === root || dir.startsWith(root + path.sep);
}

/** The agent windows working in a worktree: tagged with it, or started in a folder of it. */
export function windowsIn(rec: WorktreeRecord, agents: readonly AgentRow[]): AgentRow[] {
  return agents.filter((a) => a.worktree === rec.path || (a.cwd && inside(a.cwd, rec.path)));
}

function windowOf(a: AgentRow): WorktreeWindow {
  return { name: a.name, window: a.window, session: a.session, state: a.state };
}

export async function describeWorktree(rec: WorktreeRecord, agents: readonly AgentRow[]): Promise<WorktreeInfo> {
  const windows = windowsIn(rec, agents).map(windowOf);
  const exists = existsSync(rec.path);
  if (!exists) return { ...rec, exists, window: windows[0] ?? null, windows, files: [], changed: 0, ahead: null, behind: null, lastCommit: null };
  const [files, ab, last] = await Promise.all([changedFiles(rec.path), aheadBehind(rec.path, rec.base), lastCommit(rec.path)]);
  return {
    ...rec,
    exists,
    window: windows[0] ?? null,
    windows,
    files,
    changed: new Set(files.map((f) => f.path)).size,
    ahead: ab?.ahead ?? null,
    behind: ab?.behind ?? null,
    lastCommit: last,
  };
}

const SHOWN = 8;

function some(list: string[]): string {
  return list.length <= SHOWN ? list.join(', ') : `${list.slice(0, SHOWN).join(', ')} and ${list.length - SHOWN} more`;
}

/** What removing the worktree would lose (or stop), one line each; empty when nothing. */
export async function removalProblems(rec: WorktreeRecord, agents: readonly AgentRow[], deleteBranch: boolean): Promise<string[]> {
  const out: string[] = [];
  if (existsSync(rec.path)) {
    const files = await changedFiles(rec.path);
    const tracked = [...new Set(files.filter((f) => f.kind !== 'untracked').map((f) => f.path))];
    const untracked = files.filter((f) => f.kind === 'untracked').map((f) => f.path);
    if (tracked.length) out.push(`${tracked.length} uncommitted change${tracked.length === 1 ? '' : 's'}: ${some(tracked)}`);
    if (untracked.length) out.push(`${untracked.length} untracked file${untracked.length === 1 ? '' : 's'}: ${some(untracked)}`);
  }
  if (await branchExists(rec.repo, rec.branch)) {
    const only = await commitsOnlyOn(rec.repo, rec.branch);
    if (only.length) {
      const where = deleteBranch ? 'lost with the branch' : `kept on ${rec.branch}, but merged nowhere`;
      out.push(`${only.length} commit${only.length === 1 ? '' : 's'} on ${rec.branch} that no other branch has (${where}): ${some(only)}`);
    }
  }
  for (const a of windowsIn(rec, agents)) {
    if (a.state !== 'exited') out.push(`the agent window ${a.name} (${a.window}, ${a.agent}) still runs in it`);
  }
  return out;
}

/** Removes the worktree (and the branch when asked); the caller has judged removalProblems. */
export async function removeWorktree(rec: WorktreeRecord, opts: { force: boolean; deleteBranch: boolean }): Promise<string[]> {
  const done: string[] = [];
  if (existsSync(rec.path)) {
    await gitOk(rec.repo, ['worktree', 'remove', ...(opts.force ? ['--force'] : []), rec.path], `git worktree remove ${rec.path}`);
    done.push(`removed the worktree ${rec.path}`);
  } else {
    await git(rec.repo, ['worktree', 'prune']);
    done.push(`the folder ${rec.path} was gone already: forgotten`);
  }
  if (opts.deleteBranch && (await branchExists(rec.repo, rec.branch))) {
    await gitOk(rec.repo, ['branch', '-D', rec.branch], `git branch -D ${rec.branch}`);
    done.push(`deleted the branch ${rec.branch}`);
  } else if (await branchExists(rec.repo, rec.branch)) done.push(`kept the branch ${rec.branch}`);
  return done;
}

export interface MergeResult {
  branch: string;
  into: string;
  repo: string;
  commits: number;
  /** fast-forward | merge | nothing */
  how: 'fast-forward' | 'merge' | 'nothing';
  head: string | null;
  /** Uncommitted changes left in the worktree (not part of the merge). */
  leftBehind: number;
}

/**
 * Merges the worktree's branch into `into` (default: its base) in the main checkout. Refuses a
 * main checkout that is dirty or on another branch; a conflict is aborted, leaving everything as
 * it was, and the error lists the conflicting files.
 */
export async function mergeWorktree(rec: WorktreeRecord, intoGiven?: string): Promise<MergeResult> {
  const into = intoGiven ?? rec.base;
  const main = rec.repo;
  if (!existsSync(main)) throw new NerdrError(`the main checkout ${main} of ${rec.name} is gone`, `merge by hand: git merge ${rec.branch}`);
  if (!(await branchExists(main, into))) {
    throw new NerdrError(
      intoGiven ? `--into ${into} is not a branch of ${main}` : `the base of ${rec.name}, ${into}, is not a branch (the worktree was made from a commit)`,
      `name the branch to merge into: nerdr worktree merge ${rec.name} --into BRANCH`,
    );
  }
  const on = await currentRef(main);
  if (on !== into) {
    throw new NerdrError(`the main checkout ${main} is on ${on ?? 'no commit'}, not ${into}`, `switch it first (git -C ${JSON.stringify(main)} switch ${into}), or merge into that branch: --into ${on ?? 'BRANCH'}`);
  }
  const dirty = [...new Set((await changedFiles(main)).filter((f) => f.kind !== 'untracked').map((f) => f.path))];
  if (dirty.length) {
    throw new NerdrError(`the main checkout ${main} has uncommitted changes: ${some(dirty)}; nothing was merged`, `commit or stash them first (git -C ${JSON.stringify(main)} stash), then merge again`);
  }
  const leftBehind = existsSync(rec.path) ? new Set((await changedFiles(rec.path)).map((f) => f.path)).size : 0;
  const count = Number((await gitOk(main, ['rev-list', '--count', `refs/heads/${into}..refs/heads/${rec.branch}`], 'git rev-list')).trim());
  if (count === 0) return { branch: rec.branch, into, repo: main, commits: 0, how: 'nothing', head: (await lastCommit(main))?.hash ?? null, leftBehind };
  const before = (await lastCommit(main))?.hash ?? null;
  const r = await git(main, ['merge', '--no-edit', '--no-stat', `refs/heads/${rec.branch}`], {});
  if (r.code !== 0) {
    const conflicts = (await git(main, ['diff', '--name-only', '--diff-filter=U', '-z'])).stdout.split('\0').filter(Boolean);
    const merging = (await git(main, ['rev-parse', '--quiet', '--verify', 'MERGE_HEAD'])).code === 0;
    if (merging) await gitOk(main, ['merge', '--abort'], 'git merge --abort');
    if (conflicts.length) {
      throw new NerdrError(
        `merging ${rec.branch} into ${into} conflicts in ${conflicts.length} file${conflicts.length === 1 ? '' : 's'}: ${conflicts.join(', ')}; the merge was aborted, nothing changed`,
        `resolve it on the branch: in ${rec.path}, git merge ${into}, fix and commit; then nerdr worktree merge ${rec.name} again`,
      );
    }
    throw new GitError(`git merge ${rec.branch}`, r, merging ? 'the merge was aborted, nothing changed' : undefined);
  }
  const head = (await lastCommit(main))?.hash ?? null;
  const parents = (await gitOk(main, ['rev-list', '--parents', '-n', '1', 'HEAD'], 'git rev-list')).trim().split(' ').length - 1;
  return { branch: rec.branch, into, repo: main, commits: count, how: parents > 1 && head !== before ? 'merge' : 'fast-forward', head, leftBehind };
}
