// `nerdr new --worktree BRANCH`: the worktree the agent runs in, made (or found again) before the
// window is asked for. Folder: `<root>/<BRANCH with / as ->`; root from [worktrees] root, else
// `<repository's parent>/<repository name>.worktrees`.

import { cpSync, existsSync, lstatSync, mkdirSync, realpathSync, rmdirSync, rmSync } from 'node:fs';
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
  /** What was made now, for discardWorktree when what follows fails; null when nothing was. */
  made: Made | null;
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
  let made: Made | null = null;
  if (existing) {
    if (real(existing.path) !== real(where)) {
      throw new NerdrError(`the branch ${p.branch} is checked out at ${existing.path} already`, existing.path === main ? `switch the main checkout to another branch first (git -C ${JSON.stringify(main)} switch -), or choose another branch` : `run the agent there: nerdr new … --cwd ${JSON.stringify(existing.path)}`);
    }
    notes.push(`the worktree ${where} of ${p.branch} exists: the agent runs in it as it is`);
  } else {
    if (existsSync(where)) {
      throw new NerdrError(`${where} exists and is not a worktree of ${p.branch}`, 'move it away, or choose another branch name');
    }
    const madeRoot = mkdirSync(path.dirname(where), { recursive: true });
    const isNew = !(await branchExists(top, p.branch));
    const args = isNew ? ['worktree', 'add', '-b', p.branch, where, base] : ['worktree', 'add', where, p.branch];
    made = { main, where, branch: isNew ? p.branch : null, root: madeRoot ?? null };
    const r = await git(main, args);
    if (r.code !== 0) {
      // git makes the branch before the folder: a folder it cannot make leaves the branch behind
      const left = await undoWorktree(made);
      const kept = left.length ? `${left.join(' and ')} git made ${left.length === 1 ? 'was' : 'were'} removed again, so nothing is left behind; ` : '';
      throw new GitError(`git worktree add ${p.branch}`, r, `${kept}git says why above (a shorter branch name, when the file system finds the folder's name too long)`);
    }
    created = true;
    if (!isNew && p.base !== undefined) notes.push(`the branch ${p.branch} exists: checked out as it is (${p.base} is only its base for ahead/behind)`);
    try {
      notes.push(...copyFiles(main, where, p.config.copy));
    } catch (err) {
      const left = await undoWorktree(made);
      throw new NerdrError(`[worktrees] copy into ${where} failed: ${(err as Error).message}; ${left.join(' and ')} made for it ${left.length === 1 ? 'was' : 'were'} removed again`, 'fix the file or its permissions in the main checkout, or [worktrees] copy in config.toml');
    }
  }
  const rec: WorktreeRecord = { name, path: where, branch: p.branch, base, repo: main, createdAt: new Date().toISOString() };
  // a worktree that was there already keeps its first record (its base)
  const kept = p.registry.list().find((r) => r.path === where);
  if (kept && !created) return { ...kept, created, made, notes };
  p.registry.add(rec);
  return { ...rec, created, made, notes };
}

/** Takes back a worktree prepareWorktree made, when the window for it could not be made; says what went. */
export async function discardWorktree(w: PreparedWorktree, registry: WorktreeRegistry): Promise<string[]> {
  if (!w.made) return [];
  registry.remove(w.path);
  return undoWorktree(w.made);
}

/** What `nerdr new --worktree` made, so a failure can take it back: the branch when it made it, the root folder when it made that. */
export interface Made {
  main: string;
  where: string;
  branch: string | null;
  root: string | null;
}

/**
 * Takes back a worktree made just now (a failure after it must leave nothing behind): the
 * folder, git's record of it, the branch when it was new, the root folder when it was made for
 * it and is empty. Only ever called on what this command made, before anyone worked in it.
 * Returns what it removed, for the message.
 */
export async function undoWorktree(m: Made): Promise<string[]> {
  const undone: string[] = [];
  if (existsSync(m.where)) {
    const r = await git(m.main, ['worktree', 'remove', '--force', m.where]);
    if (r.code !== 0) rmSync(m.where, { recursive: true, force: true });
    undone.push(`the folder ${m.where}`);
  }
  await git(m.main, ['worktree', 'prune']);
  if (m.branch !== null && (await branchExists(m.main, m.branch))) {
    await git(m.main, ['branch', '-D', m.branch]);
    undone.push(`the branch ${m.branch}`);
  }
  // the folders made to hold it, innermost first, while empty
  if (m.root !== null) {
    for (let d = path.dirname(m.where); d.length >= m.root.length; d = path.dirname(d)) {
      try {
        rmdirSync(d);
      } catch {
        break;
      }
    }
  }
  return undone;
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
