// `nerdr worktree ls | rm | merge`: what each worktree nerdr made holds, and the refusals that
// keep work from being lost. The CLI (src/cli/worktree.ts) parses and prints; this decides.

import { existsSync, lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { NerdrError } from '../errors.js';
import type { AgentRow } from '../protocol/index.js';
import { aheadBehind, branchExists, commitsOnlyOn, commitsOnlyOnDetachedHead, currentRef, git, GitError, gitOk, ignoredFiles, lastCommit, mergeMessage, operationInProgress, type ChangedFile, type LastCommit, type Operation } from './git.js';
import { changedFiles } from './status.js';
import type { WorktreeRecord } from './registry.js';
import { visible } from '../text.js';

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

/** A list from a repository as one line: each item visible (no raw control characters), at most `max` of them. */
function some(list: readonly string[], max = SHOWN): string {
  const shown = list.slice(0, max).map((t) => visible(t)).join(', ');
  return list.length <= max ? shown : `${shown} and ${list.length - max} more`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Whether `[worktrees] rm_ignored` lets the ignored entry go: it is one of the paths, or inside one. */
export function ignoredAllowed(entry: string, allow: readonly string[]): boolean {
  const e = entry.replace(/\/+$/, '');
  return allow.some((a) => {
    const x = a.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
    return x !== '' && (e === x || e.startsWith(`${x}/`));
  });
}

/** What removing a worktree would delete, leave unreachable or stop: each list as git names it (raw). */
export interface RemovalCheck {
  /** Files with uncommitted changes, staged or not, each once. */
  changed: string[];
  untracked: string[];
  /** Ignored files and folders (`build/`) that would be lost: refused. */
  ignored: string[];
  /** Ignored ones `[worktrees] rm_ignored` lets go: deleted without asking. */
  ignoredLetGo: string[];
  /** Ignored files the main checkout has byte for byte (a `[worktrees] copy` left as it was): nothing is lost. */
  ignoredCopies: string[];
  /** Commits only the worktree's detached HEAD holds, `HASH subject`: no ref reaches them once it is gone. */
  detached: string[];
  /** Commits of its branch that no other branch (local or remote) has, `HASH subject`. */
  branchOnly: string[];
  /** Agent windows in it that have not exited. */
  running: AgentRow[];
}

/** Larger ignored files are not compared with the main checkout's: refused, not read into memory. */
const SAME_FILE_LIMIT = 8 * 1024 * 1024;

function sameFile(a: string, b: string): boolean {
  try {
    const [sa, sb] = [lstatSync(a), lstatSync(b)];
    return sa.isFile() && sb.isFile() && sa.size === sb.size && sa.size <= SAME_FILE_LIMIT && readFileSync(a).equals(readFileSync(b));
  } catch {
    return false;
  }
}

/** Reads what removing the worktree would lose; `allowIgnored` is `[worktrees] rm_ignored`. */
export async function checkRemoval(rec: WorktreeRecord, agents: readonly AgentRow[], allowIgnored: readonly string[] = []): Promise<RemovalCheck> {
  const out: RemovalCheck = { changed: [], untracked: [], ignored: [], ignoredLetGo: [], ignoredCopies: [], detached: [], branchOnly: [], running: [] };
  if (existsSync(rec.path)) {
    const [files, ignored, detached] = await Promise.all([changedFiles(rec.path), ignoredFiles(rec.path), commitsOnlyOnDetachedHead(rec.path, rec.repo)]);
    out.changed = [...new Set(files.filter((f) => f.kind !== 'untracked').map((f) => f.path))];
    out.untracked = files.filter((f) => f.kind === 'untracked').map((f) => f.path);
    for (const f of ignored) {
      if (ignoredAllowed(f, allowIgnored)) out.ignoredLetGo.push(f);
      else if (!f.endsWith('/') && sameFile(path.join(rec.path, f), path.join(rec.repo, f))) out.ignoredCopies.push(f);
      else out.ignored.push(f);
    }
    out.detached = detached;
  }
  if (await branchExists(rec.repo, rec.branch)) out.branchOnly = await commitsOnlyOn(rec.repo, rec.branch);
  out.running = windowsIn(rec, agents).filter((a) => a.state !== 'exited');
  return out;
}

/** Why the worktree is not removed without --force, one line each; empty when nothing would be lost. */
export function removalProblems(c: RemovalCheck, rec: WorktreeRecord, deleteBranch: boolean): string[] {
  const out: string[] = [];
  if (c.changed.length) out.push(`${plural(c.changed.length, 'uncommitted change')}: ${some(c.changed)}`);
  if (c.untracked.length) out.push(`${plural(c.untracked.length, 'untracked file')}: ${some(c.untracked)}`);
  if (c.ignored.length) out.push(`${plural(c.ignored.length, 'ignored file or folder', 'ignored files or folders')} (git would delete them): ${some(c.ignored)}`);
  if (c.detached.length) out.push(`${plural(c.detached.length, 'commit')} on its detached HEAD that no branch or tag reaches (only git fsck would find ${c.detached.length === 1 ? 'it' : 'them'} afterwards): ${some(c.detached)}`);
  if (c.branchOnly.length) {
    const where = deleteBranch ? 'lost with the branch' : `kept on ${rec.branch}, but merged nowhere`;
    out.push(`${plural(c.branchOnly.length, 'commit')} on ${rec.branch} that no other branch has (${where}): ${some(c.branchOnly)}`);
  }
  for (const a of c.running) out.push(`the agent window ${a.name} (${a.window}, ${a.agent}) still runs in it`);
  return out;
}

/** In the --force output, lists are shown up to this many items (--json has every one). */
const SHOWN_DONE = 50;

/** What the removal threw away (or left unreachable), one line each, for the user after it is done. */
export function thrownAway(c: RemovalCheck, rec: WorktreeRecord, deleteBranch: boolean): string[] {
  const out: string[] = [];
  const all = (l: readonly string[]) => some(l, SHOWN_DONE);
  if (c.changed.length) out.push(`discarded ${plural(c.changed.length, 'uncommitted change')}: ${all(c.changed)}`);
  if (c.untracked.length) out.push(`deleted ${plural(c.untracked.length, 'untracked file')}: ${all(c.untracked)}`);
  if (c.ignored.length) out.push(`deleted ${plural(c.ignored.length, 'ignored file or folder', 'ignored files or folders')}: ${all(c.ignored)}`);
  if (c.ignoredLetGo.length) out.push(`deleted ${plural(c.ignoredLetGo.length, 'ignored file or folder', 'ignored files or folders')} [worktrees] rm_ignored lets go: ${all(c.ignoredLetGo)}`);
  if (c.ignoredCopies.length) out.push(`deleted ${plural(c.ignoredCopies.length, 'ignored file')} the main checkout has the same: ${all(c.ignoredCopies)}`);
  if (c.detached.length) {
    const first = c.detached[0]!.split(' ')[0]!;
    out.push(`left ${plural(c.detached.length, 'commit')} of its detached HEAD that no branch or tag reaches: ${all(c.detached)} (until git gc prunes ${c.detached.length === 1 ? 'it' : 'them'}, \`git -C ${JSON.stringify(rec.repo)} branch NAME ${first}\` brings ${c.detached.length === 1 ? 'it' : 'the newest'} back)`);
  }
  if (deleteBranch && c.branchOnly.length) out.push(`lost ${plural(c.branchOnly.length, 'commit')} that only ${rec.branch} had: ${all(c.branchOnly)}`);
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

/** What is under way in a checkout, and how the user ends it (`g` is `git -C "<checkout>"`). */
const OPERATION_TEXT: Record<Operation, { what: string; fix: (g: string) => string }> = {
  merge: { what: 'a merge', fix: (g) => `finish it (${g} commit) or abort it (${g} merge --abort)` },
  rebase: { what: 'a rebase', fix: (g) => `finish it (${g} rebase --continue) or abort it (${g} rebase --abort)` },
  am: { what: 'a git am', fix: (g) => `finish it (${g} am --continue) or abort it (${g} am --abort)` },
  'cherry-pick': { what: 'a cherry-pick', fix: (g) => `finish it (${g} cherry-pick --continue) or abort it (${g} cherry-pick --abort)` },
  revert: { what: 'a revert', fix: (g) => `finish it (${g} revert --continue) or abort it (${g} revert --abort)` },
  bisect: { what: 'a bisect', fix: (g) => `end it (${g} bisect reset)` },
};

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
  // the user's own merge (or rebase, …) there is theirs to finish: a merge on top of it would fail,
  // and aborting that failure would throw their work away
  const busy = await operationInProgress(main);
  if (busy) throw new NerdrError(`the main checkout ${main} has ${OPERATION_TEXT[busy].what} in progress; nothing was merged`, `${OPERATION_TEXT[busy].fix(`git -C ${JSON.stringify(main)}`)}, then merge again`);
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
  // the full ref, so a tag of the same name is not merged instead; the message names the branch
  const r = await git(main, ['merge', '--no-edit', '--no-stat', '-m', await mergeMessage(main, rec.branch), `refs/heads/${rec.branch}`]);
  if (r.code !== 0) {
    const conflicts = (await git(main, ['diff', '--name-only', '--diff-filter=U', '-z'])).stdout.split('\0').filter(Boolean);
    const merging = (await git(main, ['rev-parse', '--quiet', '--verify', 'MERGE_HEAD'])).code === 0;
    if (merging) await gitOk(main, ['merge', '--abort'], 'git merge --abort');
    if (conflicts.length) {
      throw new NerdrError(
        `merging ${rec.branch} into ${into} conflicts in ${plural(conflicts.length, 'file')}: ${conflicts.map((t) => visible(t)).join(', ')}; the merge was aborted, nothing changed`,
        `resolve it on the branch: in ${rec.path}, git merge ${into}, fix and commit; then nerdr worktree merge ${rec.name} again`,
      );
    }
    throw new GitError(`git merge ${rec.branch}`, r, merging ? 'the merge was aborted, nothing changed' : undefined);
  }
  const head = (await lastCommit(main))?.hash ?? null;
  const parents = (await gitOk(main, ['rev-list', '--parents', '-n', '1', 'HEAD'], 'git rev-list')).trim().split(' ').length - 1;
  return { branch: rec.branch, into, repo: main, commits: count, how: parents > 1 && head !== before ? 'merge' : 'fast-forward', head, leftBehind };
}
