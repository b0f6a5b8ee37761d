// The hook spool: one file per agent hook event, written without a Node start by hooks/nerdr-hook
// (POSIX sh) or in-process by the opencode plugin, into <state>/spool/<server key>/ (0700, files
// 0600). The supervisor reads it on file-system notifications, in order per window (timestamp,
// then name: the writer's sequence number), authenticates each file by its secret exactly as the
// socket does (authenticateHook), applies it through the socket's hook path, and deletes it once
// its effect is kept in tmux (the window's @nerdr_facts, which names the events applied and not
// yet deleted, so the next supervisor applies each exactly once). What was written while no
// supervisor ran is applied when one starts. docs/agents.md "Hook paths".
//
// A file:
//   nerdr-spool 1\n secret <NERDR_TAB>\n agent <agent>\n event <name or empty>\n <clock>\n \n <payload>
// where <clock> is `time <ns since the epoch>` or `uptime <s.cc>` (Linux's /proc/uptime, read by
// the shell hook without starting `date`; turned into wall-clock time with the boot time), named
// <time>.<sequence>-<writer>.hook. Writers make it as `.<name without .hook>` and rename or
// hard-link it into place; the reader removes that temporary name with the event.
//
// Never crashes the supervisor: a file that is not nerdr's or cannot be read is moved into
// aside/ (for `nerdr doctor`), a file of another owner is left alone, a refused event is logged.

import { watch, type FSWatcher } from 'node:fs';
import { chmod, lstat, mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MAX_PAYLOAD_BYTES, parsePayload } from '../integrations/payload.js';
import { authenticateHook } from './socket/hook-params.js';
import { RpcError } from './socket/errors.js';
import type { HookReport, Report } from './socket/server.js';
import { isHerdrReportMethod, parseHerdrReport, type HerdrReportMethod } from './socket/herdr.js';
import type { Logger } from './log.js';
import { systemClock, type Clock, type Timer } from './clock.js';
import { statFields } from '../store/lock.js';
import { Rerun } from './rerun.js';

export const SPOOL_MAGIC = 'nerdr-spool 1';
/** The folder of moved-aside files, inside the spool. */
export const ASIDE_DIR = 'aside';
/** `<time>.<sequence>-<pid>.hook` (the time in the writer's clock: ns or hundredths of a second of uptime). */
export const SPOOL_NAME_RE = /^(\d{1,20})\.([0-9A-Za-z_-]{1,40})\.hook$/;
const MAX_HEADER_BYTES = 4096;
/** A payload is read up to one byte past the cap, so a file is at most this big. */
export const MAX_FILE_BYTES = MAX_PAYLOAD_BYTES + 1 + MAX_HEADER_BYTES;
/** Moved-aside files kept; the oldest go first. */
export const MAX_ASIDE = 200;
/** How long a pass waits for applied events to be kept in tmux before it leaves their files. */
export const DURABLE_WAIT_MS = 5000;
/** A writer's temporary dot-file this old belongs to a hook that was killed mid-write. */
export const TEMP_MAX_AGE_MS = 60_000;
/**
 * Files whose payloads are read at once: a pass reads every waiting file's header (to order them),
 * then the payloads of the first SPOOL_BATCH, applies them, then the next. A backlog of 300
 * events of 1 MiB read at once took the supervisor from 85 to 425 MB; a batch holds at most
 * SPOOL_BATCH × MAX_FILE_BYTES (4 MiB; 16 measured 182 MB, 4 measured 144 MB on the live test),
 * read into the reader's slots (slot()), not a Buffer per file: 71 → 92 MB (docs/performance.md).
 */
export const SPOOL_BATCH = 4;
/** A payload slot kept between passes is at most this big (most hook events are a few KiB). */
const SMALL_SLOT_BYTES = 64 * 1024;
/** Headers read at once (each at most MAX_HEADER_BYTES). */
const HEADER_BATCH = 64;

// ---- pure parts ---------------------------------------------------------------------------

export interface SpoolEntry {
  name: string;
  /** Wall-clock nanoseconds at which the hook ran. */
  time: bigint;
  secret: string;
  agent: string;
  /** The event name from the hook's command line; '' when the payload names it. */
  event: string;
  /**
   * '' for a hook event; a herdr report method (`pane.report_agent` …) for a report made while no
   * supervisor answered (`nerdr pane report-agent`), whose payload is the request's JSON line.
   */
  method: string;
  /** The reader's: a view of the buffer it reads payloads into, good until the next batch. */
  payload: Buffer;
}

export type Parsed = { entry: SpoolEntry } | { malformed: string };

/** A waiting file by its header, with its size then. */
type Waiting = SpoolEntry & { size: number };

/**
 * Reads one spool file's bytes. `btimeSec` (the boot time, /proc/stat) turns an `uptime` clock
 * into wall-clock time. Pure.
 */
export function parseSpoolFile(name: string, buf: Buffer, btimeSec: number | null = bootTimeSec()): Parsed {
  if (!SPOOL_NAME_RE.test(name)) return { malformed: 'not a spool file name' };
  const end = buf.indexOf('\n\n');
  if (end < 0 || end > MAX_HEADER_BYTES) return { malformed: 'no header' };
  const lines = buf.subarray(0, end).toString('utf8').split('\n');
  if (lines[0] !== SPOOL_MAGIC) return { malformed: 'not a nerdr spool file' };
  const fields = new Map<string, string>();
  for (const l of lines.slice(1)) {
    const sp = l.indexOf(' ');
    const key = sp < 0 ? l : l.slice(0, sp);
    if (fields.has(key)) return { malformed: `field ${key} twice` };
    fields.set(key, sp < 0 ? '' : l.slice(sp + 1));
  }
  const time = fields.get('time');
  const uptime = fields.get('uptime');
  let ns: bigint;
  if (time !== undefined && uptime === undefined && /^\d{1,20}$/.test(time)) ns = BigInt(time);
  else if (uptime !== undefined && time === undefined && /^\d{1,12}\.\d\d$/.test(uptime) && btimeSec !== null) {
    ns = BigInt(btimeSec) * 1_000_000_000n + BigInt(uptime.replace('.', '')) * 10_000_000n;
  } else return { malformed: 'no time' };
  const secret = fields.get('secret');
  const agent = fields.get('agent');
  if (secret === undefined || agent === undefined) return { malformed: 'no secret or agent' };
  const method = (fields.get('method') ?? '').trim();
  if (method !== '' && !isHerdrReportMethod(method)) return { malformed: `not a report method: ${method.slice(0, 40)}` };
  return { entry: { name, time: ns, secret, agent, event: (fields.get('event') ?? '').trim(), method, payload: buf.subarray(end + 2) } };
}

/** The temporary name a writer used for a spool file (`.` + the name without `.hook`). Pure. */
/**
 * An in-process writer of the spool format (as the opencode plugin writes it; the bench and the
 * tests use this one): one file, written under its temporary dot-name and renamed into place.
 * `seq` orders events of the same nanosecond. Returns the file's name.
 */
export function writeSpoolFile(dir: string, e: { secret: string; agent: string; event?: string; method?: string; timeNs: bigint; seq: number; payload: string }): string {
  const name = `${e.timeNs}.${String(e.seq).padStart(10, '0')}-${process.pid}`;
  const method = e.method ? `method ${e.method}\n` : '';
  writeFileSync(path.join(dir, `.${name}`), `${SPOOL_MAGIC}\nsecret ${e.secret}\nagent ${e.agent}\nevent ${e.event ?? ''}\n${method}time ${e.timeNs}\n\n${e.payload}`, { mode: 0o600 });
  renameSync(path.join(dir, `.${name}`), path.join(dir, `${name}.hook`));
  return `${name}.hook`;
}

export function tempNameOf(name: string): string {
  return `.${name.replace(/\.hook$/, '')}`;
}

/** The `nerdr.hook` params a spool entry stands for: what `nerdr hook` would have sent. Pure. */
export function hookParams(e: SpoolEntry): Record<string, unknown> {
  // parsed once: a payload near the cap is a string and an object of about 1 MiB each already
  const p = parsePayload(e.payload);
  const params: Record<string, unknown> = { secret: e.secret, agent: e.agent, event: p.value };
  if (p.value === null) params.dropped = p.dropped;
  if (e.event) params.hint = e.event.slice(0, 64);
  return params;
}

/** The order events are applied in: timestamp, then name (the writer's zero-padded sequence number). Pure. */
export function ordered<E extends SpoolEntry>(entries: E[]): E[] {
  return [...entries].sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** An event written before the window's agent (last) started belongs to an earlier agent. Pure. */
export function beforeStart(e: SpoolEntry, startedAtMs: number | null): boolean {
  return startedAtMs !== null && e.time < BigInt(Math.floor(startedAtMs)) * 1_000_000n;
}

/**
 * A writer's temporary file left by a killed hook, or a pane's sequence counter (`.seq-<pane>`)
 * idle for a minute (events a minute apart are ordered by their time): removable. Pure, clock passed in.
 */
export function staleTemp(name: string, mtimeMs: number, nowMs: number): boolean {
  return name.startsWith('.') && nowMs - mtimeMs > TEMP_MAX_AGE_MS;
}

/** Where a file moved aside goes: `aside/<ms>-<why>-<name>`, so the oldest sorts first. Pure. */
export function asideName(name: string, why: string, nowMs: number): string {
  return `${String(Math.floor(nowMs)).padStart(13, '0')}-${why.replace(/[^a-z0-9]+/gi, '-')}-${name.replace(/^\.+/, '')}`;
}

/**
 * Start time (ms since the epoch) of a process from its /proc/<pid>/stat and /proc/stat's btime,
 * never later than the real start: btime is whole seconds and starttime is clock ticks (USER_HZ,
 * 100 on every Linux nerdr runs on). Pure.
 */
export function startFromStat(statText: string, btimeSec: number, hz = 100): number | null {
  const start = statFields(statText)?.start;
  if (start == null || !Number.isFinite(btimeSec)) return null;
  return btimeSec * 1000 + Math.floor((Number(start) * 1000) / hz);
}

let btime: number | null | undefined;

/** The boot time in whole seconds (Linux /proc/stat btime); null elsewhere. */
export function bootTimeSec(): number | null {
  if (btime === undefined) {
    try {
      const m = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
      btime = m ? Number(m[1]) : null;
    } catch {
      btime = null;
    }
  }
  return btime;
}

/** When a process started (Linux); null elsewhere or when it is gone. */
export function processStartMs(pid: number): number | null {
  const boot = bootTimeSec();
  if (!Number.isInteger(pid) || pid <= 0 || boot === null) return null;
  try {
    return startFromStat(readFileSync(`/proc/${pid}/stat`, 'utf8'), boot);
  } catch {
    return null;
  }
}

// ---- the folder ---------------------------------------------------------------------------

/** The spool folder of the supervisor whose socket is `socketPath` (hooks/nerdr-hook derives it so). */
export function spoolDirForSocket(socketPath: string): string {
  const base = path.basename(socketPath).replace(/^nerdr-/, '').replace(/\.sock$/, '');
  return path.join(path.dirname(socketPath), 'spool', base);
}

/** Creates the spool folder private, or makes it so. Refuses a link or another owner's folder. */
export async function ensureSpoolDir(dir: string): Promise<void> {
  await mkdir(path.dirname(dir), { recursive: true, mode: 0o700 });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const st = await lstat(dir);
  if (!st.isDirectory()) throw new Error(`the spool ${dir} is not a folder`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) throw new Error(`the spool ${dir} belongs to uid ${st.uid}, not to you`);
  if ((st.mode & 0o777) !== 0o700) await chmod(dir, 0o700);
}

export interface SpoolStatus {
  dir: string;
  exists: boolean;
  waiting: number;
  /** Modification time (ms) of the oldest waiting file. */
  oldestWaitingMs: number | null;
  aside: number;
  /** The oldest moved-aside file, by name. */
  oldestAside: string | null;
}

/** What `nerdr doctor` shows: files waiting, files moved aside, the oldest. */
export async function spoolStatus(dir: string): Promise<SpoolStatus> {
  const st: SpoolStatus = { dir, exists: false, waiting: 0, oldestWaitingMs: null, aside: 0, oldestAside: null };
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return st;
  }
  st.exists = true;
  for (const n of names) {
    if (!SPOOL_NAME_RE.test(n)) continue;
    st.waiting++;
    const m = await lstat(path.join(dir, n)).then((s) => s.mtimeMs, () => null);
    if (m !== null && (st.oldestWaitingMs === null || m < st.oldestWaitingMs)) st.oldestWaitingMs = m;
  }
  const aside = await readdir(path.join(dir, ASIDE_DIR)).catch(() => [] as string[]);
  aside.sort();
  st.aside = aside.length;
  st.oldestAside = aside[0] ?? null;
  return st;
}

// ---- the reader ---------------------------------------------------------------------------

export interface SpoolReaderOptions<W> {
  dir: string;
  /** The socket's own: a secret to the window it names, or null. */
  authenticate(secret: string): W | null | undefined;
  /**
   * The socket's own hook sink, for the event in spool file `name`. A promise: the event is
   * applied at most once per window, and resolves true once its effect is durable (kept in
   * tmux), when the file may go; until then the file stays, for the next supervisor.
   */
  apply(hook: HookReport<W>, name: string): void | Promise<boolean>;
  /** The socket's report sink (a report spooled while no supervisor answered), the same way. */
  applyReport?(report: Report<W>, name: string): void | Promise<boolean>;
  /** These files of the window's events are deleted. */
  deleted?(window: W, names: string[]): void;
  /** When the window's agent last started (ms), or null when unknown. */
  startedAt(window: W): number | null;
  /** A name for the window in log lines. */
  describe(window: W): string;
  log: Logger;
  /** Time and the rewatch timer; default the system clock. */
  clock?: Clock;
}

export class SpoolReader<W> {
  private watcher: FSWatcher | null = null;
  private readonly passes = new Rerun(() => this.pass(), {
    more: () => !this.closed,
    failed: (e) => this.opts.log('warn', `spool: ${e.message}`),
  });
  private scheduled = false;
  private closed = false;
  private rewatchTimer: Timer | null = null;
  /** Files of another owner, logged once. */
  private readonly ignored = new Set<string>();
  /** When temporary files were last looked at (-Infinity: at the first pass). */
  private lastSweep = -Infinity;
  private readonly uid = process.getuid?.();
  /** What payloads are read into, one per file of a batch (slot()). */
  private slots: Buffer[] = [];
  private readonly now: () => number;
  private readonly clock: Clock;

  constructor(private readonly opts: SpoolReaderOptions<W>) {
    this.clock = opts.clock ?? systemClock;
    this.now = () => this.clock.now();
  }

  /** Makes the folder, watches it, and applies what was left in it, in order. */
  async start(): Promise<void> {
    await ensureSpoolDir(this.opts.dir);
    this.watch();
    await this.drain();
  }

  private watch(): void {
    if (this.closed) return;
    try {
      this.watcher = watch(this.opts.dir, { persistent: false }, (_type, name) => {
        if (name === null || !String(name).startsWith('.')) this.schedule();
      });
      this.watcher.on('error', (e) => this.rewatch(e));
    } catch (e) {
      this.rewatch(e as Error);
    }
  }

  /** The folder was removed or the watch failed: make it again and read what is there. */
  private rewatch(e: Error): void {
    this.watcher?.close();
    this.watcher = null;
    if (this.closed || this.rewatchTimer) return;
    this.opts.log('warn', `spool: watching ${this.opts.dir} failed (${e.message}); watching again in 1 s`);
    this.rewatchTimer = this.clock.after(1000, () => {
      this.rewatchTimer = null;
      ensureSpoolDir(this.opts.dir).then(
        () => {
          this.watch();
          this.schedule();
        },
        (err: Error) => this.rewatch(err),
      );
    });
  }

  /** Notifications come in bursts: one pass per turn of the event loop. */
  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  /** Reads and applies everything waiting; resolves when the folder held nothing new. */
  drain(): Promise<void> {
    return this.passes.run();
  }

  private async pass(): Promise<void> {
    const dir = this.opts.dir;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') this.rewatch(e as Error);
      return;
    }
    const present = new Set(names);
    // leftovers of killed hooks and idle counters are looked at once a minute, not per event
    const sweep = this.now() - this.lastSweep > TEMP_MAX_AGE_MS;
    if (sweep) this.lastSweep = this.now();
    // headers first (bounded reads), to know the order; payloads in batches, in that order
    const waiting: Waiting[] = [];
    for (let i = 0; i < names.length && !this.closed; i += HEADER_BATCH) {
      const heads = await Promise.all(names.slice(i, i + HEADER_BATCH).map((n) => this.read(n, present, sweep)));
      for (const h of heads) if (h) waiting.push(h);
    }
    let unknown = 0;
    const done: string[] = [];
    const durable: { name: string; window: W; kept: Promise<boolean> }[] = [];
    // a hard-linked file's temporary name goes with it
    const withTemp = (n: string): string[] => (present.has(tempNameOf(n)) ? [n, tempNameOf(n)] : [n]);
    // a hook event's secret is in its header: one that names no window is refused unread, as
    // the socket refuses it (a herdr report names its pane in the payload, so it is read)
    const queue = ordered(waiting).filter((h) => {
      if (h.method || (h.secret !== '' && this.opts.authenticate(h.secret))) return true;
      unknown++;
      done.push(...withTemp(h.name));
      return false;
    });
    // payloads are read into the reader's slots, again for every batch: a Buffer per file is memory outside
    // V8's heap that is given back only when a collection finds its wrapper, long after (a backlog
    // of 1 MiB events held 70 MB of them at once); the text and the object made of a payload are
    // the heap's, and collected with it
    for (let i = 0; i < queue.length && !this.closed; i += SPOOL_BATCH) {
      const batch = await Promise.all(queue.slice(i, i + SPOOL_BATCH).map((h, k) => this.readWhole(h.name, this.slot(k, h.size))));
      for (let j = 0; j < batch.length; j++) {
        const e = batch[j];
        // each payload goes as soon as its event is applied, not with its batch
        batch[j] = null;
        if (this.closed) break;
        if (!e) continue;
        const r = await this.applyOne(e);
        if (r.result === 'unknown') unknown++;
        if (r.result === 'applied' && r.kept) durable.push({ name: e.name, window: r.window, kept: r.kept });
        else done.push(...withTemp(e.name));
      }
    }
    if (unknown > 0) this.opts.log('info', `spool: ${unknown} event(s) with a secret that names no window refused (as the socket refuses them)`);
    await Promise.all(done.map((n) => unlink(path.join(dir, n)).catch(() => undefined)));
    this.slots = this.slots.map((b) => (b.length > SMALL_SLOT_BYTES ? Buffer.alloc(0) : b));
    if (durable.length === 0) return;
    // an applied event's file goes only once its effect is kept in tmux: a supervisor that dies
    // before loses nothing, and one that dies after has it in the window's facts
    const kept = await this.within(Promise.all(durable.map((d) => d.kept)), DURABLE_WAIT_MS);
    if (!kept) {
      this.opts.log('warn', `spool: ${durable.length} applied event(s) not yet kept in tmux after ${DURABLE_WAIT_MS / 1000} s; their files stay for the next pass`);
      return;
    }
    const gone = new Map<W, string[]>();
    await Promise.all(
      durable.map(async (d, i) => {
        if (!kept[i]) return;
        await Promise.all(withTemp(d.name).map((n) => unlink(path.join(dir, n)).catch(() => undefined)));
        gone.set(d.window, [...(gone.get(d.window) ?? []), d.name]);
      }),
    );
    for (const [w, list] of gone) this.opts.deleted?.(w, list);
  }

  /**
   * Slot k, big enough for a file of `size` bytes and one more (a file that grew since its header
   * was read is seen so). Slots are kept between passes while small; a big one (a backlog of big
   * payloads) only for its pass.
   */
  private slot(k: number, size: number): Buffer {
    const want = Math.min(size, MAX_FILE_BYTES) + 1;
    const have = this.slots[k];
    if (have && have.length >= want) return have;
    // past a small one, the biggest at once: a backlog of growing payloads reuses it
    const b = Buffer.allocUnsafeSlow(want <= SMALL_SLOT_BYTES ? SMALL_SLOT_BYTES : MAX_FILE_BYTES + 1);
    this.slots[k] = b;
    return b;
  }

  /** The promise's value, or null if it takes longer than `ms` (on the reader's clock). */
  private within<T>(p: Promise<T>, ms: number): Promise<T | null> {
    return new Promise((resolve) => {
      const t = this.clock.after(ms, () => resolve(null));
      p.then(
        (v) => {
          t.cancel();
          resolve(v);
        },
        () => {
          t.cancel();
          resolve(null);
        },
      );
    });
  }

  /**
   * One directory entry: a waiting event with its header only (an empty payload: readWhole reads
   * it), or null (skipped, cleaned up or moved aside).
   */
  private async read(name: string, present: Set<string>, sweep: boolean): Promise<Waiting | null> {
    if (name === ASIDE_DIR || this.ignored.has(name) || (name.startsWith('.') && !sweep)) return null;
    const file = path.join(this.opts.dir, name);
    let st;
    try {
      st = await lstat(file, { bigint: true });
    } catch {
      return null; // gone meanwhile
    }
    if (this.uid !== undefined && Number(st.uid) !== this.uid) {
      this.ignored.add(name);
      this.opts.log('warn', `spool: ${name} belongs to uid ${st.uid}, not to this supervisor: ignored`);
      return null;
    }
    if (name.startsWith('.')) {
      // a temporary name whose event is waiting is removed with it
      if (!present.has(`${name.slice(1)}.hook`) && staleTemp(name, Number(st.mtimeMs), this.now())) await unlink(file).catch(() => undefined);
      return null;
    }
    if (!st.isFile() || !SPOOL_NAME_RE.test(name)) return this.aside(name, 'foreign', 'not a spool file');
    if (st.size > BigInt(MAX_FILE_BYTES)) return this.aside(name, 'too-large', `${st.size} bytes`);
    let head: Buffer;
    try {
      const fh = await open(file, 'r');
      try {
        const buf = Buffer.alloc(MAX_HEADER_BYTES + 2);
        const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
        head = buf.subarray(0, bytesRead);
      } finally {
        await fh.close();
      }
    } catch (e) {
      return this.aside(name, 'unreadable', (e as Error).message);
    }
    const parsed = parseSpoolFile(name, head);
    if ('malformed' in parsed) return this.aside(name, 'malformed', parsed.malformed);
    return { ...parsed.entry, payload: Buffer.alloc(0), size: Number(st.size) };
  }

  /**
   * A waiting file whose header was read, now whole, read into `into` (its payload a view of it,
   * good until `into` is read into again); null if it went meanwhile or changed.
   */
  private async readWhole(name: string, into: Buffer): Promise<SpoolEntry | null> {
    const file = path.join(this.opts.dir, name);
    let n = 0;
    try {
      const fh = await open(file, 'r');
      try {
        for (;;) {
          const { bytesRead } = await fh.read(into, n, into.length - n, n);
          if (bytesRead === 0 || (n += bytesRead) === into.length) break;
        }
      } finally {
        await fh.close();
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      return this.aside(name, 'unreadable', (e as Error).message);
    }
    if (n > MAX_FILE_BYTES) return this.aside(name, 'too-large', `over ${MAX_FILE_BYTES} bytes`);
    const parsed = parseSpoolFile(name, into.subarray(0, n));
    if ('malformed' in parsed) return this.aside(name, 'malformed', parsed.malformed);
    return parsed.entry;
  }

  private async applyOne(e: SpoolEntry): Promise<{ result: 'unknown' | 'refused' | 'discarded' } | { result: 'applied'; window: W; kept: Promise<boolean> | null }> {
    if (e.method) return this.applyReport(e);
    let report: HookReport<W>;
    try {
      report = await authenticateHook(hookParams(e), (secret) => this.opts.authenticate(secret));
    } catch (err) {
      if (err instanceof RpcError && err.code === 'unauthorized') return { result: 'unknown' };
      this.opts.log('info', `spool: ${e.name} refused: ${(err as Error).message}`);
      return { result: 'refused' };
    }
    if (beforeStart(e, this.opts.startedAt(report.window))) {
      this.opts.log('info', `spool: ${e.name} (${e.agent} ${e.event || 'event'}) for ${this.opts.describe(report.window)} was written before its agent last started: discarded`);
      return { result: 'discarded' };
    }
    let kept: Promise<boolean> | null = null;
    try {
      const r = this.opts.apply(report, e.name);
      kept = r instanceof Promise ? r : null;
    } catch (err) {
      this.opts.log('warn', `spool: ${e.name}: ${(err as Error).message}`);
    }
    return { result: 'applied', window: report.window, kept };
  }

  /** A herdr report kept while no supervisor answered: checked as the socket checks it, then applied. */
  private async applyReport(e: SpoolEntry): Promise<{ result: 'unknown' | 'refused' | 'discarded' } | { result: 'applied'; window: W; kept: Promise<boolean> | null }> {
    let report: Report<W>;
    try {
      const line = e.payload.toString('utf8');
      const req = JSON.parse(line) as { params?: unknown };
      const params = req && typeof req.params === 'object' && req.params !== null ? (req.params as Record<string, unknown>) : {};
      const { paneId, ...rest } = parseHerdrReport(e.method as HerdrReportMethod, params, line);
      const window = paneId === '' ? null : await this.opts.authenticate(paneId);
      if (window === null || window === undefined) return { result: 'unknown' };
      report = { ...rest, window };
    } catch (err) {
      this.opts.log('info', `spool: ${e.name} (${e.method}) refused: ${(err as Error).message}`);
      return { result: 'refused' };
    }
    if (beforeStart(e, this.opts.startedAt(report.window))) {
      this.opts.log('info', `spool: ${e.name} (${e.method}) for ${this.opts.describe(report.window)} was made before its agent last started: discarded`);
      return { result: 'discarded' };
    }
    let kept: Promise<boolean> | null = null;
    try {
      const r = this.opts.applyReport?.(report, e.name);
      kept = r instanceof Promise ? r : null;
    } catch (err) {
      this.opts.log('warn', `spool: ${e.name}: ${(err as Error).message}`);
    }
    return { result: 'applied', window: report.window, kept };
  }

  private async aside(name: string, why: string, detail: string): Promise<null> {
    const dir = path.join(this.opts.dir, ASIDE_DIR);
    try {
      await mkdir(dir, { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw e;
      });
      await rename(path.join(this.opts.dir, name), path.join(dir, asideName(name, why, this.now())));
      this.opts.log('warn', `spool: ${name} moved aside (${why}: ${detail})`);
      const kept = (await readdir(dir)).sort();
      for (const old of kept.slice(0, Math.max(0, kept.length - MAX_ASIDE))) await unlink(path.join(dir, old)).catch(() => undefined);
    } catch (e) {
      this.ignored.add(name);
      this.opts.log('warn', `spool: ${name} (${why}) could not be moved aside: ${(e as Error).message}; ignored`);
    }
    return null;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.rewatchTimer?.cancel();
    this.rewatchTimer = null;
    this.watcher?.close();
    this.watcher = null;
    await this.passes.current;
  }
}
