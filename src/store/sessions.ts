// Saved sessions (docs/persistence.md): per tmux session, the agent windows
// `nerdr restore` brings back after the tmux server is gone.
//
//   <dir>/<safe session>-<hash8>.json                 the current version, written atomically
//   <dir>/snapshots/<safe session>-<hash8>-<time>.json earlier versions: at most one per 15 min, newest 20 kept
//   <dir>/<safe session>-<hash8>.broken-<time>.json   a file that could not be read, moved aside, never overwritten
//   <dir>/<safe session>-<hash8>.lock                 held while a version is written (several processes may save)
//
// <hash8> is 8 hex of sha256(serverKey(socket) + "\0" + session): two tmux servers, or two
// session names that make the same safe name, never share a file.

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { NerdrError } from '../errors.js';
import { serverKey } from '../tmux/server.js';
import { brokenPath, fileTime, writeFileAtomic } from './atomic.js';
import { withFileLock } from './lock.js';

export interface SavedWindow {
  agent: string;
  name: string;
  index: number;
  cwd: string;
  args: string[];
  argv: string[];
  conversationId: string | null;
  conversationFrom: string | null;
  queue: { id: string; text: string; queuedAt: number }[];
  /** The worktree nerdr made for the window, its branch and base (absent in files of older nerdr). */
  worktree?: string | null | undefined;
  branch?: string | null | undefined;
  base?: string | null | undefined;
  /** A `--cmd` window's quiet rule wait (ms, 0 = off); absent in files of older nerdr. */
  idleAfterMs?: number | null | undefined;
  /** Hibernated (docs/lifecycle.md): restore brings it back hibernated, its kept screen shown. */
  hibernated?: { since: number; screen: string; rssKb: number | null } | null | undefined;
}

export interface SavedSession {
  version: 1;
  /** The tmux socket path. */
  server: string;
  session: string;
  /** ISO time. */
  savedAt: string;
  windows: SavedWindow[];
}

export type StoreLog = (level: 'info' | 'warn' | 'error', msg: string) => void;

/** How often the previous version is copied to snapshots/, and how many are kept. */
export const SNAPSHOT_EVERY_MS = 15 * 60 * 1000;
export const SNAPSHOTS_KEPT = 20;

const savedWindowSchema = z.object({
  agent: z.string().min(1),
  name: z.string(),
  index: z.number().int().min(0),
  cwd: z.string().min(1),
  args: z.array(z.string()),
  argv: z.array(z.string()),
  conversationId: z.string().nullable(),
  conversationFrom: z.string().nullable(),
  queue: z.array(z.object({ id: z.string(), text: z.string(), queuedAt: z.number() })),
  worktree: z.string().min(1).nullable().optional(),
  branch: z.string().nullable().optional(),
  base: z.string().nullable().optional(),
  idleAfterMs: z.number().int().min(0).nullable().optional(),
  hibernated: z.object({ since: z.number(), screen: z.string().min(1), rssKb: z.number().nullable() }).nullable().optional(),
});

export const savedSessionSchema = z.object({
  version: z.literal(1),
  server: z.string().min(1),
  session: z.string().min(1),
  savedAt: z.string(),
  windows: z.array(savedWindowSchema),
});

export { fileTime };

const TIME_RE = '(\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-\\d{3}Z)';

function parseFileTime(t: string): number {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z$/.exec(t);
  return m ? Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`) : NaN;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The base file name (no extension) for one session of one tmux server. */
export function sessionBase(server: string, session: string): string {
  const safe = session.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64) || '_';
  const hash = createHash('sha256').update(`${serverKey(server)}\0${session}`).digest('hex').slice(0, 8);
  return `${safe}-${hash}`;
}

/** Why a text is not a saved session, or the session. */
function parse(text: string): { ok: true; value: SavedSession } | { ok: false; reason: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `not JSON: ${(err as Error).message}` };
  }
  const r = savedSessionSchema.safeParse(raw);
  if (!r.success) {
    const first = r.error.issues[0];
    const where = first?.path.length ? first.path.join('.') : 'the file';
    return { ok: false, reason: `${where}: ${first?.message ?? 'invalid'}` };
  }
  return { ok: true, value: r.data as SavedSession };
}

export class SessionStore {
  private readonly now: () => number;
  private readonly log: StoreLog;
  private readonly found: string[] = [];

  constructor(
    private readonly dir: string,
    opts: { now?: () => number; log?: StoreLog } = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? (() => undefined);
  }

  private get snapDir(): string {
    return path.join(this.dir, 'snapshots');
  }

  /** The file of one session (exists or not). */
  file(server: string, session: string): string {
    return path.join(this.dir, `${sessionBase(server, session)}.json`);
  }

  /**
   * Writes the session's new version; keeps the previous one as a snapshot when due, or always
   * with `snapshot: 'always'` (a supervisor's first write of a session: after a reboot the old
   * file may be the only record of windows not restored yet).
   */
  save(s: SavedSession, opts: { snapshot?: 'when-due' | 'always' } = {}): void {
    const checked = savedSessionSchema.safeParse(s);
    if (!checked.success) throw new NerdrError(`refusing to save session ${s.session}: ${checked.error.issues[0]?.message ?? 'invalid'}`, undefined, { code: 'internal' });
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const base = sessionBase(s.server, s.session);
    const file = path.join(this.dir, `${base}.json`);
    const text = JSON.stringify(s, null, 2) + '\n';
    withFileLock(path.join(this.dir, `${base}.lock`), () => {
      const previous = readText(file);
      if (previous !== undefined) {
        const p = parse(previous);
        if (!p.ok) this.moveAside(file, base, p.reason);
        else if (previous !== text) this.snapshot(base, previous, opts.snapshot === 'always');
      }
      writeFileAtomic(file, text);
    });
  }

  /** The saved session, or null (none, or broken: then moved aside and recorded in problems()). */
  load(server: string, session: string): SavedSession | null {
    const base = sessionBase(server, session);
    const file = path.join(this.dir, `${base}.json`);
    return withFileLock(path.join(this.dir, `${base}.lock`), () => this.readChecked(file, base), { waitMs: 3000 });
  }

  /** A saved session or snapshot named by the user (`--from`); throws with the path and the reason. */
  loadFile(file: string): SavedSession {
    const text = readText(file);
    if (text === undefined) throw new NerdrError(`cannot read ${file}`, 'name a file from `nerdr restore --list` (or <state>/sessions/snapshots/)');
    const p = parse(text);
    if (!p.ok) throw new NerdrError(`${file} is not a saved nerdr session (${p.reason})`, 'name another snapshot');
    return p.value;
  }

  /** Every saved session (of one tmux server when given); broken files are moved aside. */
  list(server?: string): { session: string; file: string; savedAt: string; windows: number }[] {
    const out: { session: string; file: string; savedAt: string; windows: number }[] = [];
    for (const name of this.names()) {
      const base = name.slice(0, -'.json'.length);
      const file = path.join(this.dir, name);
      let s: SavedSession | null;
      try {
        s = withFileLock(path.join(this.dir, `${base}.lock`), () => this.readChecked(file, base));
      } catch (err) {
        const e = err as Error;
        this.problem('warn', e instanceof NerdrError && e.fix ? `${e.message}; fix: ${e.fix}` : `cannot read ${file}: ${e.message}`);
        continue;
      }
      if (!s) continue;
      if (server !== undefined && s.server !== server) continue;
      out.push({ session: s.session, file, savedAt: s.savedAt, windows: s.windows.length });
    }
    return out.sort((a, b) => a.session.localeCompare(b.session));
  }

  /** The snapshots of one session, newest first. */
  snapshots(server: string, session: string): { file: string; savedAt: string }[] {
    return this.snapshotFiles(sessionBase(server, session)).map((f) => ({ file: path.join(this.snapDir, f.name), savedAt: new Date(f.at).toISOString() }));
  }

  /** Files that were found broken and moved aside (since this store was made). */
  problems(): string[] {
    return [...this.found];
  }

  // ---- inside ----

  private names(): string[] {
    try {
      return readdirSync(this.dir).filter((n) => n.endsWith('.json') && !n.includes('.broken-') && !n.includes('.tmp-'));
    } catch {
      return [];
    }
  }

  private readChecked(file: string, base: string): SavedSession | null {
    const text = readText(file);
    if (text === undefined) return null;
    const p = parse(text);
    if (p.ok) return p.value;
    this.moveAside(file, base, p.reason);
    return null;
  }

  private moveAside(file: string, base: string, reason: string): void {
    const aside = brokenPath(this.dir, base, this.now());
    try {
      renameSync(file, aside);
    } catch (err) {
      this.problem('error', `${file} cannot be read (${reason}) and could not be moved aside: ${(err as Error).message}`);
      throw new NerdrError(`${file} cannot be read (${reason}) and could not be moved aside`, 'move it away by hand');
    }
    this.problem('warn', `${file} could not be read (${reason}); kept as ${aside}`);
  }

  private problem(level: 'warn' | 'error', msg: string): void {
    this.found.push(msg);
    this.log(level, msg);
  }

  private snapshotFiles(base: string): { name: string; at: number }[] {
    const re = new RegExp(`^${escapeRe(base)}-${TIME_RE}\\.json$`);
    let names: string[] = [];
    try {
      names = readdirSync(this.snapDir);
    } catch {
      return [];
    }
    return names
      .map((name) => ({ name, m: re.exec(name) }))
      .filter((x) => x.m)
      .map((x) => ({ name: x.name, at: parseFileTime(x.m![1]!) }))
      .filter((x) => !Number.isNaN(x.at))
      .sort((a, b) => b.at - a.at);
  }

  /** Copies the previous version when the newest snapshot is 15 min old (or none); prunes to 20. */
  private snapshot(base: string, previous: string, always = false): void {
    const now = this.now();
    const existing = this.snapshotFiles(base);
    const newest = existing[0];
    if (!always && newest && now - newest.at < SNAPSHOT_EVERY_MS && now >= newest.at) return;
    const name = `${base}-${fileTime(now)}.json`;
    try {
      writeFileAtomic(path.join(this.snapDir, name), previous);
    } catch (err) {
      this.log('warn', `could not keep a snapshot of ${base}: ${(err as Error).message}`);
      return;
    }
    const all = [{ name, at: now }, ...existing.filter((e) => e.name !== name)].sort((a, b) => b.at - a.at);
    for (const old of all.slice(SNAPSHOTS_KEPT)) {
      try {
        unlinkSync(path.join(this.snapDir, old.name));
      } catch {
        /* gone */
      }
    }
  }
}

/** The file's text, or undefined when there is none; a file that is there but cannot be read throws. */
function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new NerdrError(
      `the saved session ${file} cannot be read (${code ?? (err as Error).message})`,
      code === 'EACCES' ? `make it readable: chmod 600 ${JSON.stringify(file)}` : 'move it away, or restore from a snapshot (`nerdr restore --list`)',
    );
  }
}
