// `nerdr new --worktree BRANCH`: the worktree the agent runs in, made (or found again) before the
// window is asked for. Folder: `<root>/<BRANCH with / as ->`; root from [worktrees] root, else
// `<repository's parent>/<repository name>.worktrees`.

import { cpSync, existsSync, lstatSync, mkdirSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NerdrError } from '../errors.js';
import type { WorktreesConfig } from '../config.js';
import { branchExists, checkBranchName, checkGitVersion, currentRef, git, GitError, listWorktrees, mainCheckout, repoRoot } from './git.js';
import type { WorktreeRegistry, WorktreeRecord } from './registry.js';

/** The folder name of a branch's worktree. */
export function worktreeName(branch: string): string {
  return branch.replace(/\//g, '-');
}

/** Where a repository's worktrees go. */
export function worktreeRoot(main: string, config: WorktreesConfig, home = os.homedir()): string {
  const root = config.root;
  if (!root) return path.join(path.dirname(main), `${path.basename(main)}.worktrees`);
  if (root === '~') return home;
  if (root.startsWith('~/')) return path.join(home, root.slice(2));
  return path.resolve(main, root);
}

export interface PreparedWorktree extends WorktreeRecord {
  /** False when the worktree was there already (the same branch at the same folder). */
  created: boolean;
  /** Things to tell the user (a file to copy that is not there, …). */
  notes: string[];
}

export interface PrepareParams {
  /** The caller's folder, or --cwd. */
  cwd: string;
  branch: string;
  base?: string | undefined;
  config: WorktreesConfig;
  registry: WorktreeRegistry;
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

export async function prepareWorktree(p: PrepareParams): Promise<PreparedWorktree> {
  await checkGitVersion();
  const top = await repoRoot(p.cwd);
  if (!top) throw new NerdrError(`--worktree: ${p.cwd} is not in a git repository`, 'run it inside a git checkout, or point --cwd at one');
  const main = (await mainCheckout(top)) ?? top;
  if (p.branch.startsWith('-')) throw new NerdrError(`git refuses the branch name ${JSON.stringify(p.branch)}: a branch cannot start with "-"`, 'choose another name');
  await checkBranchName(top, p.branch);
  if (p.base !== undefined) {
    if (p.base === '' || p.base.startsWith('-')) throw new NerdrError(`--base ${JSON.stringify(p.base)} is not a commit in ${main}`, 'name a branch, tag or commit (git branch -a lists them)');
    const r = await git(top, ['rev-parse', '--verify', '--quiet', `${p.base}^{commit}`]);
    if (r.code !== 0) throw new NerdrError(`--base ${p.base} is not a commit in ${main}`, 'name a branch, tag or commit (git branch -a lists them)');
  }
  const base = p.base ?? (await currentRef(top));
  if (base === null) throw new NerdrError(`${main} has no commit yet; a worktree starts from one`, 'make a first commit (git commit --allow-empty -m start), then try again');

  const name = worktreeName(p.branch);
  const where = path.join(worktreeRoot(main, p.config), name);
  const notes: string[] = [];
  const existing = (await listWorktrees(top)).find((w) => w.branch === p.branch);
  let created = false;
  if (existing) {
    if (real(existing.path) !== real(where)) {
      throw new NerdrError(`the branch ${p.branch} is checked out at ${existing.path} already`, existing.path === main ? `switch the main checkout to another branch first (git -C ${JSON.stringify(main)} switch -), or choose another branch` : `run the agent there: nerdr new … --cwd ${JSON.stringify(existing.path)}`);
    }
    notes.push(`the worktree ${where} of ${p.branch} exists: the agent runs in it as it is`);
  } else {
    if (existsSync(where)) {
      throw new NerdrError(`${where} exists and is not a worktree of ${p.branch}`, 'move it away, or choose another branch name');
    }
    mkdirSync(path.dirname(where), { recursive: true });
    const isNew = !(await branchExists(top, p.branch));
    const args = isNew ? ['worktree', 'add', '-b', p.branch, where, base] : ['worktree', 'add', where, p.branch];
    const r = await git(main, args);
    if (r.code !== 0) throw new GitError(`git worktree add ${p.branch}`, r);
    created = true;
    if (!isNew && p.base !== undefined) notes.push(`the branch ${p.branch} exists: checked out as it is (${p.base} is only its base for ahead/behind)`);
    notes.push(...copyFiles(main, where, p.config.copy));
  }
  const rec: WorktreeRecord = { name, path: where, branch: p.branch, base, repo: main, createdAt: new Date().toISOString() };
  // a worktree that was there already keeps its first record (its base)
  const kept = p.registry.list().find((r) => r.path === where);
  if (kept && !created) return { ...kept, created, notes };
  p.registry.add(rec);
  return { ...rec, created, notes };
}

/** [worktrees] copy: files and folders of the main checkout (untracked ones: .env, …) copied over; never over what is there. */
export function copyFiles(from: string, to: string, list: string[]): string[] {
  const notes: string[] = [];
  for (const rel of list) {
    const src = path.join(from, rel);
    const dst = path.join(to, rel);
    if (!path.resolve(src).startsWith(path.resolve(from) + path.sep)) continue;
    try {
      lstatSync(src);
    } catch {
      notes.push(`[worktrees] copy: ${rel} is not in ${from}; not copied`);
      continue;
    }
    if (existsSync(dst)) {
      notes.push(`[worktrees] copy: ${rel} is in the worktree already (git tracks it?); kept as it is`);
      continue;
    }
    mkdirSync(path.dirname(dst), { recursive: true });
    cpSync(src, dst, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false });
  }
  return notes;
}
