// A real git repository for the worktree tests: a temporary folder holding `repo` (branch main,
// one commit of README and .gitignore, an ignored .env beside it) and where nerdr puts its
// worktrees (`repo.worktrees`). git runs with an argument list, never a shell.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** `git -C cwd …args`; its stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface TestRepo {
  /** The temporary folder: remove it when done. */
  root: string;
  repo: string;
  /** Where `nerdr new --worktree` makes its worktrees. */
  wtRoot: string;
}

export function makeRepo(prefix: string, gitignore: string): TestRepo {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  const repo = path.join(root, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q');
  git(repo, 'config', 'user.email', 't@example.com');
  git(repo, 'config', 'user.name', 'T');
  git(repo, 'checkout', '-q', '-b', 'main');
  writeFileSync(path.join(repo, 'README'), 'one\n');
  writeFileSync(path.join(repo, '.gitignore'), gitignore);
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'first');
  writeFileSync(path.join(repo, '.env'), 'SECRET=1\n');
  return { root, repo, wtRoot: path.join(root, 'repo.worktrees') };
}
