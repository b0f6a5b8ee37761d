// The worktrees nerdr made: `<state dir>/worktrees.json`, so `nerdr worktree ls` lists those and
// no other, and rm/merge find a worktree by its short name. git stays the truth about what a
// worktree holds; this file only says "nerdr made it, from this repository, on this base".

import { mkdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { NerdrError } from '../errors.js';
import { brokenPath, writeFileAtomic } from '../store/atomic.js';
import { withFileLock } from '../store/lock.js';

export interface WorktreeRecord {
  /** The folder's name: the branch with `/` as `-`. */
  name: string;
  /** Absolute path of the worktree. */
  path: string;
  branch: string;
  /** The base as given (`--base`), else the branch or commit the main checkout was at. */
  base: string;
  /** The repository's main checkout. */
  repo: string;
  /** ISO time. */
  createdAt: string;
}

const recordSchema = z.object({
  name: z.string().min(1),
  path: z.string().min(1),
  branch: z.string().min(1),
  base: z.string(),
  repo: z.string().min(1),
  createdAt: z.string(),
});

const fileSchema = z.object({ version: z.literal(1), worktrees: z.array(recordSchema) });

export class WorktreeRegistry {
  constructor(private readonly dir: string) {}

  get file(): string {
    return path.join(this.dir, 'worktrees.json');
  }

  /** Every record; a file that cannot be read is moved aside (and said) rather than lost on the next write. */
  list(warn: (m: string) => void = () => undefined): WorktreeRecord[] {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new NerdrError(`cannot read ${this.file}: ${(err as Error).message}`, 'fix its permissions (it is yours, mode 600), or move it away: nerdr then forgets the worktrees it made, which stay on disk');
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      raw = undefined;
    }
    const r = fileSchema.safeParse(raw);
    if (r.success) return r.data.worktrees;
    const aside = brokenPath(this.dir, 'worktrees', Date.now());
    renameSync(this.file, aside);
    warn(`${this.file} could not be read; kept as ${aside} (nerdr starts a new list)`);
    return [];
  }

  private update(fn: (list: WorktreeRecord[]) => WorktreeRecord[]): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    withFileLock(`${this.file}.lock`, () => {
      const next = fn(this.list());
      writeFileAtomic(this.file, JSON.stringify({ version: 1, worktrees: next }, null, 2) + '\n');
    });
  }

  /** Adds or replaces the record of one worktree path. */
  add(rec: WorktreeRecord): void {
    this.update((list) => [...list.filter((r) => r.path !== rec.path), rec]);
  }

  remove(worktreePath: string): void {
    this.update((list) => list.filter((r) => r.path !== worktreePath));
  }

  /**
   * The record `name` means: a path, or a short name; among several with that name (one per
   * repository), the one of the repository `here` is in.
   */
  find(name: string, hereRepo: string | null): WorktreeRecord {
    const list = this.list();
    const abs = path.resolve(name);
    const byPath = list.find((r) => r.path === abs || r.path === name);
    if (byPath) return byPath;
    const byName = list.filter((r) => r.name === name || r.branch === name);
    if (byName.length === 1) return byName[0]!;
    const mine = byName.filter((r) => r.repo === hereRepo);
    if (mine.length === 1) return mine[0]!;
    if (byName.length > 1) {
      throw new NerdrError(`"${name}" names ${byName.length} worktrees: ${byName.map((r) => r.path).join(', ')}`, 'name it by its path, or run the command inside its repository');
    }
    const known = list.map((r) => r.name).join(', ');
    throw new NerdrError(`no worktree "${name}" made by nerdr`, known ? `nerdr's worktrees: ${known} (nerdr worktree ls)` : 'nerdr has made none: nerdr new <agent> --worktree BRANCH');
  }
}
