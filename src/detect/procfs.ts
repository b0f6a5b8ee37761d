// Reading the processes of a pane for identify.ts (docs/identify.md, "Reading the processes").
//
//   const id = await probePane(panePid);       // #{pane_pid} from tmux → Identification
//   const procs = await readPaneProcesses(panePid);   // the raw table, for tests and `explain`
//
// Linux: /proc. The terminal's foreground group is field 8 (tpgid) of /proc/<pane_pid>/stat; its
// members are found by walking the pane process's descendants (/proc/<pid>/task/<tid>/children),
// or, where the kernel has no children files, by one scan of /proc. Only the pane process and the
// foreground members are read further (cmdline, and environ for the two override variables only);
// everything is bounded (MAX_WALK processes walked, MAX_MEMBERS members read). What a process's
// cmdline and environ said is kept while it lives under the same name (see `kept`), so a probe
// that finds the same processes again reads only their small stat and children files.
// Elsewhere: one `ps -A -o pid=,ppid=,pgid=,tpgid=,ucomm=,args=` (no environment, argv split on
// spaces). Cost: docs/identify.md.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { identify, OVERRIDE_VARS, type Identification, type IdentifyOptions, type ProcInfo } from './identify.js';

/** Processes visited at most while looking for the foreground group. */
export const MAX_WALK = 256;
/** Foreground-group members whose command line and environment are read. */
export const MAX_MEMBERS = 32;
/** Descendant depth walked below the pane process. */
const MAX_DEPTH = 8;
/** Bytes of /proc/<pid>/environ read at most (the variables are looked for in this prefix). */
const MAX_ENVIRON = 256 * 1024;

export interface ReadOptions {
  /** 'proc' (default on Linux) or 'ps' (default elsewhere). */
  method?: 'proc' | 'ps';
  /** /proc mount point (tests). */
  procRoot?: string;
  /** Read NERDR_AGENT / HERDR_AGENT from environ (default true; Linux only). */
  environ?: boolean;
}

interface Stat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  pgid: number;
  session: number;
  tpgid: number;
  /** Field 22, the start time in clock ticks since boot (a pid reused later has another). */
  start?: string;
  /** Field 20, its threads when the stat was read. */
  threads?: number;
}

/** Parses /proc/<pid>/stat (the name is in parentheses and may hold spaces and parentheses). */
export function parseStat(text: string): Stat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const rest = text.slice(close + 2).split(' ');
  // after the name: state ppid pgrp session tty_nr tpgid …
  const [state = '', ppid, pgid, session, , tpgid] = rest;
  const nums = [pid, Number(ppid), Number(pgid), Number(session), Number(tpgid)];
  if (nums.some((n) => !Number.isInteger(n))) return null;
  const start = rest[19];
  const threads = Number(rest[17]);
  return {
    pid,
    comm: text.slice(open + 1, close),
    state,
    ppid: nums[1]!,
    pgid: nums[2]!,
    session: nums[3]!,
    tpgid: nums[4]!,
    ...(start && /^\d+$/.test(start) ? { start } : {}),
    ...(Number.isInteger(threads) && threads > 0 ? { threads } : {}),
  };
}

/** NUL-separated /proc/<pid>/cmdline → argv (a trailing NUL is not an argument). */
export function parseCmdline(buf: Buffer | string): string[] {
  const s = typeof buf === 'string' ? buf : buf.toString('utf8');
  if (s === '') return [];
  const parts = s.split('\0');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** The override variables from a NUL-separated environ (the first entry of each wins). */
export function parseEnviron(buf: Buffer | string, keys: readonly string[] = OVERRIDE_VARS): Record<string, string> {
  const s = typeof buf === 'string' ? buf : buf.toString('utf8');
  const out: Record<string, string> = {};
  for (const key of keys) {
    const needle = `${key}=`;
    const inner = s.indexOf(`\0${needle}`);
    const at = s.startsWith(needle) ? 0 : inner < 0 ? -1 : inner + 1;
    if (at < 0) continue;
    const end = s.indexOf('\0', at);
    out[key] = s.slice(at + needle.length, end < 0 ? s.length : end);
  }
  return out;
}

/** Parses `ps -o pid=,ppid=,pgid=,tpgid=,ucomm=,args=` lines (argv split on whitespace). */
export function parsePs(text: string): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(-?\d+)\s+(\S+)\s*(.*)$/.exec(line);
    if (!m) continue;
    const args = m[6]!.trim();
    out.push({
      pid: Number(m[1]),
      ppid: Number(m[2]),
      pgid: Number(m[3]),
      tpgid: Number(m[4]),
      comm: m[5]!,
      argv: args ? args.split(/\s+/) : [],
    });
  }
  return out;
}

function readTextSync(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

async function readBuf(file: string, max = Infinity): Promise<Buffer | null> {
  if (max === Infinity) {
    try {
      return await fsp.readFile(file);
    } catch {
      return null;
    }
  }
  let fh: fsp.FileHandle | null = null;
  try {
    fh = await fsp.open(file, 'r');
    const chunks: Buffer[] = [];
    let total = 0;
    while (total < max) {
      const b = Buffer.alloc(Math.min(65536, max - total));
      const { bytesRead } = await fh.read(b, 0, b.length, null);
      if (bytesRead === 0) break;
      chunks.push(b.subarray(0, bytesRead));
      total += bytesRead;
    }
    return Buffer.concat(chunks);
  } catch {
    return null;
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/**
 * /proc/<pid>/stat, read synchronously: it is a few hundred bytes the kernel formats without
 * taking the target's memory lock, and one async read costs 4 thread-pool round trips (~4× the
 * time). cmdline and environ, which can wait on the target's memory, stay asynchronous.
 */
function readStat(root: string, pid: number): Stat | null {
  try {
    return parseStat(fs.readFileSync(`${root}/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * Children of every thread of `pid`, or null when the kernel has no children files. Read
 * synchronously, as stat is: the kernel lists them without the target's memory lock. A process
 * with one thread (a shell, most `--cmd` programs) has one children file, its own: read without
 * listing its task folder (one file opened instead of a folder and the file; docs/identify.md).
 */
function childrenOf(root: string, s: Stat): number[] | null {
  const pid = s.pid;
  if (s.threads === 1) {
    const l = readTextSync(`${root}/${pid}/task/${pid}/children`);
    if (l !== null) return childList([l]);
    // no such file (an old kernel, or the process is gone): told apart below
  }
  let tids: string[];
  try {
    tids = fs.readdirSync(`${root}/${pid}/task`);
  } catch {
    return [];
  }
  const lists = tids.map((t) => readTextSync(`${root}/${pid}/task/${t}/children`));
  if (lists.every((l) => l === null)) return null;
  return childList(lists);
}

function childList(lists: readonly (string | null)[]): number[] {
  const out: number[] = [];
  for (const l of lists) if (l) for (const w of l.split(' ')) if (w.trim()) out.push(Number(w));
  return out;
}

async function scanAll(root: string, keep: (s: Stat) => boolean): Promise<Stat[]> {
  let names: string[];
  try {
    names = await fsp.readdir(root);
  } catch {
    return [];
  }
  const pids = names.filter((n) => /^\d+$/.test(n)).map(Number);
  const out: Stat[] = [];
  for (const p of pids) {
    const st = readStat(root, p);
    if (st && keep(st)) out.push(st);
  }
  return out;
}

async function readProc(panePid: number, opts: ReadOptions): Promise<ProcInfo[]> {
  const root = opts.procRoot ?? '/proc';
  const pane = readStat(root, panePid);
  if (!pane) return [];
  const fg = pane.tpgid;
  const members: Stat[] = [];
  if (fg > 0) {
    // walk descendants: the foreground job is (almost always) started by the pane's shell
    const seen = new Set<number>([panePid]);
    let level: Stat[] = [pane];
    let walkable = true;
    for (let depth = 0; depth < MAX_DEPTH && level.length > 0 && seen.size < MAX_WALK; depth++) {
      const kids = level.map((p) => childrenOf(root, p));
      if (depth === 0 && kids[0] === null) {
        walkable = false;
        break;
      }
      const next = kids.flatMap((k) => k ?? []).filter((p) => !seen.has(p)).slice(0, MAX_WALK - seen.size);
      for (const p of next) seen.add(p);
      const stats = next.map((p) => readStat(root, p));
      level = [];
      for (const s of stats) {
        if (!s || s.state === 'Z') continue;
        level.push(s);
        if (s.pgid === fg) members.push(s);
      }
    }
    if (!walkable) members.push(...(await scanAll(root, (s) => s.pgid === fg && s.pid !== panePid && s.state !== 'Z')));
  }
  const chosen = members.sort((a, b) => a.pid - b.pid).slice(0, MAX_MEMBERS);
  const wantEnv = opts.environ !== false;
  const all = [pane, ...chosen];
  let up: number | null | undefined;
  return Promise.all(
    all.map(async (s): Promise<ProcInfo> => {
      const key = `${root}\0${s.pid}`;
      const k = kept.get(key);
      if (k && s.start !== undefined && k.start === s.start && k.comm === s.comm && (!wantEnv || k.env !== null)) return procInfo(s, k.argv, wantEnv ? k.env : null);
      const [cmd, env] = await Promise.all([
        readBuf(`${root}/${s.pid}/cmdline`),
        wantEnv ? readBuf(`${root}/${s.pid}/environ`, MAX_ENVIRON) : Promise.resolve(null),
      ]);
      const argv = cmd ? parseCmdline(cmd) : [];
      const vars = env ? parseEnviron(env) : null;
      if (s.start !== undefined && argv.length > 0) {
        up ??= uptimeSeconds(root);
        if (up !== null && up - Number(s.start) / USER_HZ >= STABLE_AFTER_S) keep(key, { start: s.start, comm: s.comm, argv, env: vars ?? k?.env ?? null });
      }
      return procInfo(s, argv, vars);
    }),
  );
}

function procInfo(s: Stat, argv: string[], env: Record<string, string> | null): ProcInfo {
  const p: ProcInfo = { pid: s.pid, ppid: s.ppid, pgid: s.pgid, tpgid: s.tpgid, comm: s.comm, argv };
  if (env) p.env = { ...env };
  return p;
}

/**
 * What a process's cmdline and environ said, by its pid, kept while the process has the same
 * start time and name: a probe of a pane whose processes did not change reads no cmdline or
 * environ (most of a probe's cost, docs/performance.md). Kept only when read from a process at
 * least STABLE_AFTER_S old, so a title a program sets as it starts (npm exec) is read again; an
 * exec changes the name. Bounded: the oldest entries go first.
 */
const kept = new Map<string, { start: string; comm: string; argv: string[]; env: Record<string, string> | null }>();
const KEPT_MAX = 4096;
const STABLE_AFTER_S = 2;
/** Clock ticks a second in /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

function keep(key: string, entry: { start: string; comm: string; argv: string[]; env: Record<string, string> | null }): void {
  kept.delete(key);
  kept.set(key, entry);
  if (kept.size > KEPT_MAX) for (const k of kept.keys()) if (kept.size > KEPT_MAX * 0.75) kept.delete(k); else break;
}

/** Seconds since boot (/proc/uptime), or null. */
function uptimeSeconds(root: string): number | null {
  const t = readTextSync(`${root}/uptime`);
  const n = t === null ? NaN : Number.parseFloat(t);
  return Number.isFinite(n) ? n : null;
}

function execPs(): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid=,pgid=,tpgid=,ucomm=,args='], { maxBuffer: 16 * 1024 * 1024, timeout: 5000 }, (err, stdout) => {
      if (err) reject(err);
      else resolve(stdout);
    });
  });
}

async function readPs(panePid: number): Promise<ProcInfo[]> {
  let text: string;
  try {
    text = await execPs();
  } catch {
    return [];
  }
  const all = parsePs(text);
  const pane = all.find((p) => p.pid === panePid);
  if (!pane) return [];
  const fg = pane.tpgid ?? -1;
  const members = fg > 0 ? all.filter((p) => p.pgid === fg && p.pid !== panePid).slice(0, MAX_MEMBERS) : [];
  return [pane, ...members];
}

/**
 * The pane process (first) and the members of its terminal's foreground process group.
 * Empty when the pane process is gone or unreadable. Never throws.
 */
export async function readPaneProcesses(panePid: number, opts: ReadOptions = {}): Promise<ProcInfo[]> {
  const method = opts.method ?? (process.platform === 'linux' ? 'proc' : 'ps');
  return method === 'proc' ? readProc(panePid, opts) : readPs(panePid);
}

/** Symlink-resolves a path token of process `pid` (relative tokens from its cwd); null when it cannot. */
export function realpathFor(pid: number, token: string, procRoot = '/proc'): string | null {
  try {
    let p = token;
    if (!path.isAbsolute(p)) {
      if (process.platform !== 'linux') return null;
      p = path.resolve(fs.readlinkSync(`${procRoot}/${pid}/cwd`), p);
    }
    return fs.realpathSync(p);
  } catch {
    return null;
  }
}

/** One probe: read the pane's processes and say which agent is in its foreground job. */
export async function probePane(panePid: number, opts: ReadOptions & Pick<IdentifyOptions, 'names'> = {}): Promise<Identification> {
  const procs = await readPaneProcesses(panePid, opts);
  const root = opts.procRoot ?? '/proc';
  return identify(procs, panePid, { realpath: (pid, token) => realpathFor(pid, token, root), ...(opts.names ? { names: opts.names } : {}) });
}
