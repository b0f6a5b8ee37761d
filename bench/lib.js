// Shared helpers for the benchmarks: a private tmux server, the nerdr CLI and supervisor,
// CPU and RSS from /proc, a control client that polls @nerdr_state, and small statistics.
// Plain Node ESM; the product code is imported from dist/ (run `npm run build` first).

import { execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
/** The build under test: this repo, or another checkout/build named by NERDR_BENCH_ROOT (to compare a candidate fix). */
export const ROOT = path.resolve(process.env.NERDR_BENCH_ROOT || path.join(BENCH_DIR, '..'));
export const NERDR_BIN = path.join(ROOT, 'bin', 'nerdr.js');
export const DIST = path.join(ROOT, 'dist');

/** Imports a module of the build under test, e.g. load('supervisor/supervisor.js'). */
export function load(rel) {
  return import(pathToFileURL(path.join(DIST, rel)).href);
}
// the team's shared fixtures, beside the repository (not beside a NERDR_BENCH_ROOT build)
export const FIXTURES = path.resolve(BENCH_DIR, '../test/fixtures/real');
export const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

if (!existsSync(path.join(DIST, 'supervisor', 'supervisor.js'))) {
  process.stderr.write('dist/ is missing: run `npm run build` (or `npm run bench`) first\n');
  process.exit(2);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const nowMs = () => performance.timeOrigin + performance.now();

/** Command-line flags: --name value / --flag. */
export function flags(argv = process.argv.slice(2)) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const key = a.slice(2);
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      out[key] = next;
      i++;
    } else out[key] = true;
  }
  return out;
}

export function num(v, dflt) {
  const n = Number(v);
  return v === undefined || v === true || !Number.isFinite(n) ? dflt : n;
}

// ---- /proc -----------------------------------------------------------------------------

/** User + system CPU seconds of a process (its own threads, not its children). */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // after "pid (comm) ": state=0 … utime=11 stime=12
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}

/** Resident set size in bytes. */
export function rssBytes(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// ---- statistics --------------------------------------------------------------------------

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

export function summary(xs) {
  return { n: xs.length, median: round(median(xs)), min: round(Math.min(...xs)), p90: round(quantile(xs, 0.9)), max: round(Math.max(...xs)) };
}

export function round(x, digits = 3) {
  if (!Number.isFinite(x)) return x;
  const p = 10 ** digits;
  return Math.round(x * p) / p;
}

// ---- output ------------------------------------------------------------------------------

/** Prints `  label: value` lines and returns nothing; `verdict` marks a target. */
export function line(label, value) {
  process.stdout.write(`  ${label.padEnd(44)} ${value}\n`);
}

export function verdict(ok) {
  return ok ? 'MET' : 'MISSED';
}

/** The last line of every bench: `BENCH_JSON <name> {...}` (bench/run.js collects them). */
export function printJson(name, obj) {
  process.stdout.write(`BENCH_JSON ${name} ${JSON.stringify(obj)}\n`);
}

// ---- a private tmux server with a nerdr state dir -------------------------------------------

const cleanups = new Set();
let exiting = false;
function runCleanups() {
  for (const c of [...cleanups]) {
    try {
      c();
    } catch {
      /* best effort */
    }
  }
  cleanups.clear();
}
process.on('exit', runCleanups);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    if (exiting) return;
    exiting = true;
    runCleanups();
    process.exit(130);
  });
}

export class BenchServer {
  constructor(label = 'x') {
    this.name = `nerdr-bench-${label}-${randomBytes(4).toString('hex')}`;
    this.stateDir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-bench-state-'));
    this.workDir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-bench-work-'));
    this.env = { ...process.env, NERDR_STATE_DIR: this.stateDir };
    delete this.env.TMUX;
    delete this.env.TMUX_PANE;
    this.supervisorPid = 0;
    this.socketFile = '';
    this.tmuxSocket = path.join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid()}`, this.name);
    this.extraPids = new Set();
    this.cleanup = () => this.stopSync();
    cleanups.add(this.cleanup);
  }

  tmux(args, opts = {}) {
    const r = spawnSync('tmux', ['-L', this.name, ...args], { encoding: 'utf8', env: this.env, ...opts });
    if (r.status !== 0 && !opts.allowFail) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }

  /** Starts the server with a 120x40 session "bench" that runs a shell doing nothing. */
  start() {
    this.tmux(['-f', '/dev/null', 'new-session', '-d', '-s', 'bench', '-x', '120', '-y', '40', 'sleep 1000000']);
    this.tmux(['set-option', '-g', 'default-size', '120x40']);
    this.serverPid = Number(this.tmux(['display', '-p', '#{pid}']).trim());
    return this;
  }

  /** Runs the nerdr CLI against this server; resolves with stdout. */
  nerdr(args, opts = {}) {
    return new Promise((resolve, reject) => {
      execFile(process.execPath, [NERDR_BIN, '-L', this.name, ...args], { env: { ...this.env, ...(opts.env ?? {}) }, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
        if (err) reject(new Error(`nerdr ${args.join(' ')}: ${stderr || err.message}`));
        else resolve(stdout);
      });
    });
  }

  /**
   * Starts the supervisor and learns its pid and socket. `supervisor restart` starts one when none
   * runs; read-only commands such as `ls` start nothing on a server without nerdr windows.
   */
  async startSupervisor() {
    await this.nerdr(['supervisor', 'restart']);
    const st = JSON.parse(await this.nerdr(['supervisor', 'status', '--json']));
    this.supervisorPid = st.pid;
    this.clientPid = st.clientPid;
    this.socketFile = st.socket;
    return st;
  }

  /** A request to the supervisor's socket (what the CLI does, without a node start). */
  async request(method, params = {}, opts = {}) {
    const { request } = await load('supervisor/socket/index.js');
    return request(this.socketFile, method, params, { timeoutMs: 15_000, ...opts });
  }

  /**
   * A watched window through the supervisor's own `nerdr.new` (as `nerdr new` does), with any
   * agent label (so `claude` works without Claude installed), resized to cols x rows.
   */
  async newWindow({ agent = 'unknown', argv, name = agent, cols = 120, rows = 40, idleAfterMs, env }) {
    const r = await this.request('nerdr.new', { agent, argv, name, cwd: this.workDir, session: 'bench', watched: true, ...(idleAfterMs !== undefined ? { idleAfterMs } : {}), ...(env ? { env } : {}) });
    this.tmux(['resize-window', '-t', r.window, '-x', String(cols), '-y', String(rows)]);
    const panePid = Number(this.tmux(['display', '-p', '-t', r.pane, '#{pane_pid}']).trim());
    return { ...r, panePid };
  }

  /** The environment tmux gave a pane's process (NERDR_SOCKET, NERDR_TAB …). */
  paneEnv(panePid) {
    const env = {};
    for (const kv of readFileSync(`/proc/${panePid}/environ`, 'utf8').split('\0')) {
      const i = kv.indexOf('=');
      if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
    }
    return env;
  }

  state(windowId) {
    return this.tmux(['show', '-wqv', '-t', windowId, '@nerdr_state'], { allowFail: true }).trim();
  }

  /** Kills the tmux server and the supervisor (waits for it to go), removes the temp dirs. */
  stopSync() {
    cleanups.delete(this.cleanup);
    spawnSync('tmux', ['-L', this.name, 'kill-server'], { env: this.env });
    const pids = [this.supervisorPid, this.clientPid, ...this.extraPids].filter((p) => p > 0);
    const deadline = Date.now() + 3000;
    for (const pid of pids) {
      while (alive(pid) && Date.now() < deadline) spawnSync('sleep', ['0.05']);
      if (alive(pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    }
    rmSync(this.tmuxSocket, { force: true }); // tmux 3.3a leaves the socket file behind
    rmSync(this.stateDir, { recursive: true, force: true });
    rmSync(this.workDir, { recursive: true, force: true });
  }
}

/**
 * A second control client, attached to the "bench" session with no output, that polls
 * `show -wv @nerdr_state` back to back (one command in flight, `intervalMs` between). tmux has
 * no notification for option changes, and %subscription-changed is evaluated once a second.
 */
export class StatePoller {
  static async open(server) {
    const { ControlClient } = await load('tmux/client.js');
    const c = new ControlClient(server.tmuxSocket, 'bench');
    await c.run('refresh-client -f no-output,ignore-size');
    const p = new StatePoller(c);
    if (c.pid) server.extraPids.add(c.pid);
    return p;
  }

  constructor(client) {
    this.client = client;
    this.polls = 0;
  }

  async get(windowId) {
    this.polls++;
    const [r] = await this.client.send([`show-options -wqv -t ${windowId} @nerdr_state`]);
    return r && r.ok ? r.lines.map((l) => l.toString('utf8')).join('\n').trim() : '';
  }

  /** Polls until pred(state) holds; returns { state, at } (at: wall clock ms, sub-ms). */
  async waitFor(windowId, pred, { timeoutMs = 10_000, intervalMs = 1 } = {}) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = await this.get(windowId);
      const at = nowMs();
      if (pred(s)) return { state: s, at };
      if (Date.now() > deadline) throw new Error(`timeout waiting on ${windowId}: state is "${s}"`);
      if (intervalMs > 0) await sleep(intervalMs);
    }
  }

  async close() {
    await this.client.close();
  }
}

/**
 * The bench side of bench/screen-pane.js: a Unix socket the pane connects to. draw(file) makes
 * the pane draw that screen and resolves with the wall-clock ms at which its last byte was
 * written to the pty.
 */
export class ScreenControl {
  static async open(dir) {
    const net = await import('node:net');
    const sockPath = path.join(dir, `screen-${randomBytes(3).toString('hex')}.sock`);
    const ctl = new ScreenControl(sockPath);
    ctl.server = net.createServer((s) => ctl.onConnection(s));
    await new Promise((r) => ctl.server.listen(sockPath, r));
    return ctl;
  }

  constructor(sockPath) {
    this.path = sockPath;
    this.sock = null;
    this.waiters = [];
    this.connected = new Promise((r) => (this.onConnected = r));
  }

  onConnection(s) {
    this.sock = s;
    s.setEncoding('utf8');
    let buf = '';
    s.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const l = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        this.waiters.shift()?.(Number(l.slice(l.lastIndexOf(' ') + 1)));
      }
    });
    this.onConnected();
  }

  async draw(file) {
    await this.connected;
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.sock.write(`${file}\n`);
    });
  }

  close() {
    this.sock?.destroy();
    this.server?.close();
  }
}

/**
 * `--sup-node-args '<node flags>'`: node's own flags for the supervisor (a profile), or null.
 * Its value starts with `--`, which flags() would take for the next flag.
 */
export function supNodeArgs(argv = process.argv) {
  const at = argv.indexOf('--sup-node-args');
  return at > 0 && argv[at + 1] ? argv[at + 1].split(' ').filter(Boolean) : null;
}

/**
 * The supervisor as this bench's child in the foreground (`nerdr supervise --foreground`, with
 * the V8 flags and malloc setting the CLI gives it in the holder pane, from the build under test
 * (a build before them has none), then `args`), so that a profile is of the supervisor users
 * run, and node flags such as
 * --cpu-prof reach it (Node 20 takes no --cpu-prof in NODE_OPTIONS); stopSupervisor() ends it
 * with SIGTERM, which writes its profile. `logFile`: its stdout and stderr, appended.
 */
export async function startForeground(srv, args, logFile) {
  const log = typeof logFile === 'string' ? openSync(logFile, 'a') : 'ignore';
  const holder = await import(pathToFileURL(path.join(DIST, 'supervisor', 'holder.js')).href);
  const nodeFlags = holder.SUPERVISOR_NODE_FLAGS ?? [];
  const env = { ...(holder.SUPERVISOR_ENV ?? {}), ...srv.env };
  const child = spawn(process.execPath, [...nodeFlags, ...args, NERDR_BIN, '-L', srv.name, 'supervise', '--foreground'], { env, stdio: ['ignore', log, log] });
  srv.extraPids.add(child.pid);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const st = JSON.parse(await srv.nerdr(['supervisor', 'status', '--json']).catch(() => '{}'));
    if (st.pid === child.pid) {
      srv.supervisorPid = st.pid;
      srv.clientPid = st.clientPid;
      srv.socketFile = st.socket;
      return;
    }
    if (Date.now() > deadline) throw new Error('the foreground supervisor did not answer within 30 s');
    await sleep(200);
  }
}

/** Ends a supervisor startForeground() started (SIGTERM: it writes its profile) and waits for it. */
export async function stopSupervisor(srv) {
  process.kill(srv.supervisorPid, 'SIGTERM');
  for (let i = 0; i < 400 && alive(srv.supervisorPid); i++) await sleep(50);
}
