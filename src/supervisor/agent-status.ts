// The agent's own status file as a source (state/arbiter.ts agentStatus), for the agents whose
// integration names one (`statusFile`). Claude Code (2.1.3xx)
// writes `<config>/sessions/<pid>.json` for each running process, `<config>` being
// $CLAUDE_CONFIG_DIR or ~/.claude of that process: its pid, `procStart` (field 22 of
// /proc/<pid>/stat, so a reused pid is told apart) and a live `status` (busy, waiting with
// `waitingFor`, idle). docs/agents.md has what was checked; test/fixtures/claude-sessions a run.
//
// Per Claude window: the file is looked for among the pane's processes (the pane's own and its
// foreground job: nerdr's exit guard is a shell above the agent), with a backoff
// while it is not there; once found, its folder is watched (one inotify watch per folder, shared)
// and the file read again on each change. Claude rewrites the file in place, so a read can catch
// it half written: such a read is tried again shortly. Nothing is polled once the file is found.

import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { parseEnviron, readPaneProcesses } from '../detect/procfs.js';
import { integrationFor, type StatusFileSpec } from '../integrations/index.js';
import type { AgentStatus } from '../state/index.js';
import type { Clock, Timer } from './clock.js';

const fileSchema = z.object({
  pid: z.number().int().positive(),
  procStart: z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]).transform(String),
  sessionId: z.string().optional(),
  status: z.enum(['busy', 'waiting', 'idle']).optional(),
  waitingFor: z.string().max(200).optional(),
  statusUpdatedAt: z.number().optional(),
  version: z.string().optional(),
});
export type StatusFile = z.infer<typeof fileSchema>;

/** A status file's text → its fields; null for anything else (a half-written file included). Pure. */
export function parseStatusFile(text: string): StatusFile | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  const r = fileSchema.safeParse(raw);
  return r.success ? r.data : null;
}

/** Field 22 of /proc/<pid>/stat (start time, clock ticks since boot), as Claude writes it. Pure. */
export function startTicks(statText: string): string | null {
  const close = statText.lastIndexOf(')');
  if (close < 0) return null;
  const v = statText.slice(close + 2).split(' ')[19];
  return v && /^\d+$/.test(v) ? v : null;
}

/** The status a file gives the arbiter, when it is this process's. Pure. */
export function statusFor(file: StatusFile, pid: number, ticks: string | null, where: string): AgentStatus | null {
  if (file.pid !== pid || ticks === null || file.procStart !== ticks || !file.status) return null;
  return { status: file.status, ...(file.waitingFor ? { waitingFor: file.waitingFor } : {}), ...(file.statusUpdatedAt !== undefined ? { updatedAt: file.statusUpdatedAt } : {}), file: where };
}

/** What the watcher needs of a window. */
export interface StatusWindow {
  readonly paneId: string;
  readonly panePid: number;
  readonly agent: string;
  readonly dead: boolean;
  readonly generation: number;
}

export interface StatusWatchOptions {
  clock: Clock;
  /** The window's status changed (null: its file is gone). */
  deliver(paneId: string, status: AgentStatus | null): void;
  log(level: 'info' | 'warn', msg: string): void;
  /** /proc (tests). */
  procRoot?: string;
}

/** The status file of an agent, where its integration says it writes one. */
function statusFileOf(agent: string): StatusFileSpec | null {
  return integrationFor(agent)?.statusFile ?? null;
}

/** Looks for a file again after 0.25 s, doubling up to 10 s (Claude writes it ~0.3 s after start). */
const FIND_FIRST_MS = 250;
const FIND_MAX_MS = 10_000;
/** A read that caught the file half written is tried again this soon. */
const TORN_RETRY_MS = 30;
/** A change is read after this quiet (a write is a truncate and a write: two events). */
const READ_DEBOUNCE_MS = 10;

interface Tracked {
  spec: StatusFileSpec;
  panePid: number;
  generation: number;
  /** Set once the file is found. */
  pid: number | null;
  ticks: string | null;
  file: string | null;
  findTimer: Timer | null;
  findWait: number;
  readTimer: Timer | null;
  torn: number;
  last: string;
  delivered: boolean;
  stopWatch: (() => void) | null;
  finding: boolean;
}

export class AgentStatusWatcher {
  private readonly tracked = new Map<string, Tracked>();
  /** One fs.watch per folder, with the files wanted in it: what to do on a change, and on a lost watch. */
  private readonly dirs = new Map<string, { watcher: fs.FSWatcher; wanted: Map<string, { changed: () => void; lost: () => void }> }>();
  private disposed = false;

  constructor(private readonly opts: StatusWatchOptions) {}

  /** Called on every change of a window: starts, restarts or stops its watch. */
  track(w: StatusWindow): void {
    if (this.disposed) return;
    const spec = statusFileOf(w.agent);
    const want = spec !== null && !w.dead && w.panePid > 0;
    const t = this.tracked.get(w.paneId);
    // the arbiter forgets a status with the process (exit, restart, another agent): no null is owed
    if (t && (!want || t.panePid !== w.panePid || t.generation !== w.generation)) this.forget(w.paneId, false);
    if (!want || this.tracked.has(w.paneId)) return;
    const n: Tracked = {
      spec, panePid: w.panePid, generation: w.generation, pid: null, ticks: null, file: null, findTimer: null, findWait: FIND_FIRST_MS,
      readTimer: null, torn: 0, last: '', delivered: false, stopWatch: null, finding: false,
    };
    this.tracked.set(w.paneId, n);
    this.find(w.paneId, n);
  }

  /** The window is gone, or no longer a Claude one (`deliver` null if it had a status). */
  forget(paneId: string, deliverNull = true): void {
    const t = this.tracked.get(paneId);
    if (!t) return;
    this.tracked.delete(paneId);
    this.stop(t);
    if (t.delivered && deliverNull) this.opts.deliver(paneId, null);
  }

  /** The windows whose file is being read, and where (the tests; `explain` shows the arbiter's). */
  files(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [pane, t] of this.tracked) if (t.file) out.set(pane, t.file);
    return out;
  }

  dispose(): void {
    this.disposed = true;
    for (const t of this.tracked.values()) this.stop(t);
    this.tracked.clear();
    for (const d of this.dirs.values()) d.watcher.close();
    this.dirs.clear();
  }

  private stop(t: Tracked): void {
    t.findTimer?.cancel();
    t.readTimer?.cancel();
    t.findTimer = t.readTimer = null;
    t.stopWatch?.();
    t.stopWatch = null;
  }

  private live(paneId: string, t: Tracked): boolean {
    return !this.disposed && this.tracked.get(paneId) === t;
  }

  private proc(p: string): string {
    return path.join(this.opts.procRoot ?? '/proc', p);
  }

  private ticksOf(pid: number): string | null {
    try {
      return startTicks(fs.readFileSync(this.proc(`${pid}/stat`), 'utf8'));
    } catch {
      return null;
    }
  }

  /** One look for the file among the pane's processes; again later with a backoff. */
  private find(paneId: string, t: Tracked): void {
    if (t.finding) return;
    t.finding = true;
    void readPaneProcesses(t.panePid, { procRoot: this.opts.procRoot, environ: false, method: 'proc' })
      .then((procs) => {
        t.finding = false;
        if (!this.live(paneId, t) || t.file) return;
        for (const p of procs) {
          let env: Record<string, string>;
          try {
            env = parseEnviron(fs.readFileSync(this.proc(`${p.pid}/environ`)), [...t.spec.vars]);
          } catch {
            continue;
          }
          const dir = t.spec.folder(env);
          if (!dir) continue;
          const file = path.join(dir, `${p.pid}.json`);
          let text: string;
          try {
            text = fs.readFileSync(file, 'utf8');
          } catch {
            continue;
          }
          const parsed = parseStatusFile(text);
          const ticks = this.ticksOf(p.pid);
          // a half-written file is this process's all the same: its name is the pid
          if (parsed && (parsed.pid !== p.pid || parsed.procStart !== ticks)) continue;
          t.pid = p.pid;
          t.ticks = ticks;
          t.file = file;
          this.opts.log('info', `${paneId}: reading ${file} (the agent's own status)`);
          this.watch(paneId, t, dir, path.basename(file));
          this.read(paneId, t);
          return;
        }
        t.findTimer = this.opts.clock.after(t.findWait, () => {
          t.findTimer = null;
          if (this.live(paneId, t)) this.find(paneId, t);
        });
        t.findWait = Math.min(FIND_MAX_MS, t.findWait * 2);
      })
      .catch(() => {
        t.finding = false;
      });
  }

  private watch(paneId: string, t: Tracked, dir: string, name: string): void {
    let d = this.dirs.get(dir);
    if (!d) {
      let watcher: fs.FSWatcher;
      try {
        watcher = fs.watch(dir, { persistent: false });
      } catch (err) {
        this.opts.log('warn', `cannot watch ${dir}: ${(err as Error).message}; its status files are not read`);
        return;
      }
      const entry = { watcher, wanted: new Map<string, { changed: () => void; lost: () => void }>() };
      watcher.on('change', (_type, file) => {
        const f = typeof file === 'string' ? file : file?.toString();
        if (f) entry.wanted.get(f)?.changed();
        else for (const w of entry.wanted.values()) w.changed();
      });
      // the folder went (or the watch broke): each file is looked for again, as for a new process
      watcher.on('error', () => {
        watcher.close();
        this.dirs.delete(dir);
        for (const w of [...entry.wanted.values()]) w.lost();
      });
      this.dirs.set(dir, entry);
      d = entry;
    }
    const entry = d;
    const mine = { changed: (): void => this.scheduleRead(paneId, t, READ_DEBOUNCE_MS), lost: (): void => this.lose(paneId, t) };
    entry.wanted.set(name, mine);
    t.stopWatch = () => {
      if (entry.wanted.get(name) === mine) entry.wanted.delete(name);
      if (entry.wanted.size === 0 && this.dirs.get(dir) === entry) {
        entry.watcher.close();
        this.dirs.delete(dir);
      }
    };
  }

  private scheduleRead(paneId: string, t: Tracked, ms: number): void {
    if (t.readTimer || !this.live(paneId, t)) return;
    t.readTimer = this.opts.clock.after(ms, () => {
      t.readTimer = null;
      if (this.live(paneId, t)) this.read(paneId, t);
    });
  }

  /** The file is gone (the process ended, Claude removed it) or unwatched: look again, as for a new process. */
  private lose(paneId: string, t: Tracked): void {
    if (!this.live(paneId, t)) return;
    this.opts.log('info', `${paneId}: ${t.file ?? 'its status file'} is gone`);
    this.stop(t);
    t.file = null;
    t.pid = null;
    t.findWait = FIND_FIRST_MS;
    if (t.delivered) {
      t.delivered = false;
      t.last = '';
      this.opts.deliver(paneId, null);
    }
    this.find(paneId, t);
  }

  private read(paneId: string, t: Tracked): void {
    if (!t.file || t.pid === null) return;
    let text: string;
    try {
      text = fs.readFileSync(t.file, 'utf8');
    } catch {
      this.lose(paneId, t);
      return;
    }
    if (text === t.last) return;
    const parsed = parseStatusFile(text);
    if (!parsed) {
      // half written: the rest follows (a few tries; then the next change reads it again)
      if (t.torn++ < 5) this.scheduleRead(paneId, t, TORN_RETRY_MS);
      return;
    }
    t.torn = 0;
    t.last = text;
    const status = statusFor(parsed, t.pid, t.ticks, t.file);
    if (!status) return;
    t.delivered = true;
    this.opts.deliver(paneId, status);
  }
}
