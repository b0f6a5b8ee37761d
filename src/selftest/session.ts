// One real agent under nerdr in a private tmux server: scratch HOME, `nerdr new <agent>`,
// keys, screens, state polling with deadlines, and a cleanup that ends every process the
// run started, by pid. `nerdr selftest` and the conformance suite (test/agents) both drive
// agents through it.

import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { nerdrBin } from '../paths.js';
import { pidAlive, processStartTicks, sameProcessAlive } from '../store/lock.js';
import { tmuxArgv } from '../tmux/server.js';

export interface Row {
  name: string;
  agent: string;
  state: string;
  window: string;
  pane: string;
  conversationId: string | null;
  conversationFrom: string | null;
  seen: boolean;
  subagents: number;
  background: boolean;
  id: string;
  exitStatus: string | null;
  [k: string]: unknown;
}

export interface Exec {
  code: number;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<Exec> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr: stderr || (err && code !== 0 ? err.message : '') });
    });
  });
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it returns a value (not undefined) or the deadline passes. */
export async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number, everyMs = 100): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() >= deadline) return undefined;
    await delay(everyMs);
  }
}

export interface Screen {
  plain: string;
  ansi: string;
}

export class PhaseError extends Error {}

/** How an agent is launched for a run (a profile gives these: src/selftest/profiles.ts). */
export interface LaunchOptions {
  agent: string;
  /** Extra arguments after `nerdr new <agent>` (passed after `--`). */
  args?: string[];
  /** Environment of the tmux server (and so of the agent), on top of the scratch basics. */
  env?: Record<string, string>;
  /** Writes the agent's config into the scratch HOME; gets (home, project). */
  configure?: (home: string, project: string) => void;
  /** nerdr's own config.toml for this run (e.g. an opt-in install mode). */
  nerdrConfig?: string;
}

export interface AgentRunOptions extends LaunchOptions {
  /** The run's folder (scratch HOME, project, nerdr state) is made in here. */
  runsDir: string;
  /** Where `save()` writes the screens. */
  screensDir: string;
  /** PATH of the private tmux server (so of the agent): where the agent's command and tmux are. */
  path: string;
  /** Proxies that lead nowhere in the server's environment (OFFLINE_ENV). */
  offline?: boolean;
  /** The private tmux socket is `<socketPrefix>-<random>` (default nerdr-test). */
  socketPrefix?: string;
}

/** Proxies that lead nowhere: an agent that honours them cannot reach anything but 127.0.0.1. */
export const OFFLINE_ENV: Record<string, string> = {
  HTTP_PROXY: 'http://127.0.0.1:9',
  HTTPS_PROXY: 'http://127.0.0.1:9',
  http_proxy: 'http://127.0.0.1:9',
  https_proxy: 'http://127.0.0.1:9',
  NO_PROXY: '127.0.0.1,localhost',
  no_proxy: '127.0.0.1,localhost',
};

/** Processes whose environment carries this run's marker: everything the tmux server started. */
function markedPids(marker: string): number[] {
  const out: number[] = [];
  let all: string[] = [];
  try {
    all = readdirSync('/proc');
  } catch {
    return []; // no /proc (macOS): the pids remembered from tmux are all there is
  }
  for (const d of all) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const env = readFileSync(`/proc/${d}/environ`, 'latin1');
      if (env.includes(`NERDR_TEST_RUN=${marker}\0`)) out.push(Number(d));
    } catch {
      /* gone or not ours */
    }
  }
  return out.filter((p) => p !== process.pid);
}


export class AgentRun {
  readonly id = randomBytes(4).toString('hex');
  readonly socketName: string;
  readonly dir: string;
  readonly home: string;
  readonly project: string;
  readonly stateDir: string;
  readonly env: NodeJS.ProcessEnv;
  window = '';
  pane = '';
  /** Screens saved in this run, by phase. */
  readonly screens = new Map<string, Screen>();
  private client: ChildProcess | null = null;
  /** Every process this run started or found, with when it started: a pid freed meanwhile may name another process by the cleanup. */
  private pids = new Map<number, string | null>();

  private note(pid: number): void {
    if (Number.isInteger(pid) && pid > 0 && !this.pids.has(pid)) this.pids.set(pid, processStartTicks(pid));
  }

  constructor(readonly opts: AgentRunOptions) {
    this.socketName = `${opts.socketPrefix ?? 'nerdr-test'}-${this.id}`;
    this.dir = path.join(opts.runsDir, `${opts.agent}-${this.id}`);
    this.home = path.join(this.dir, 'home');
    this.project = path.join(this.dir, 'proj');
    this.stateDir = path.join(this.dir, 'state');
    for (const d of [this.home, this.project]) mkdirSync(d, { recursive: true });
    mkdirSync(this.stateDir, { recursive: true, mode: 0o700 });
    // its own repository, so the agent does not take the nerdr checkout around it for the project
    execFileSync('git', ['init', '-q', this.project]);
    this.env = {
      PATH: opts.path,
      HOME: this.home,
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      SHELL: '/bin/sh',
      NERDR_STATE_DIR: this.stateDir,
      NERDR_CONFIG_DIR: path.join(this.dir, 'nerdr-config'),
      NERDR_TEST_RUN: this.id,
      ...(opts.offline ? OFFLINE_ENV : {}),
      ...opts.env,
    };
    if (process.env.TMUX_TMPDIR) this.env.TMUX_TMPDIR = process.env.TMUX_TMPDIR;
    opts.configure?.(this.home, this.project);
    if (opts.nerdrConfig !== undefined) {
      mkdirSync(this.env.NERDR_CONFIG_DIR!, { recursive: true });
      writeFileSync(path.join(this.env.NERDR_CONFIG_DIR!, 'config.toml'), opts.nerdrConfig);
    }
  }

  tmux(...args: string[]): Promise<Exec> {
    return run('tmux', tmuxArgv(['-L', this.socketName], args), this.env);
  }

  nerdr(...args: string[]): Promise<Exec> {
    return run(process.execPath, [nerdrBin, '-L', this.socketName, ...args], this.env);
  }

  /** Private tmux server with a session "work" (120×40), then `nerdr new <agent>` in it. */
  async start(): Promise<void> {
    const s = await run('tmux', tmuxArgv(['-L', this.socketName, '-f', '/dev/null'], ['new-session', '-d', '-s', 'work', '-x', '120', '-y', '40', '-c', this.project, 'sh']), this.env);
    if (s.code !== 0) throw new Error(`tmux new-session failed: ${s.stderr}`);
    await this.remember();
    const args = this.opts.args?.length ? ['--', ...this.opts.args] : [];
    const r = await this.nerdr('new', this.opts.agent, '-t', 'work', '-d', '--cwd', this.project, '--json', ...args);
    if (r.code !== 0) throw new Error(`nerdr new ${this.opts.agent} failed (${r.code}): ${r.stderr || r.stdout}`);
    const j = JSON.parse(r.stdout) as { window: string; pane: string };
    this.window = j.window;
    this.pane = j.pane;
    await this.remember();
  }

  /** Ends the tmux server (the agent and the supervisor with it) and starts an empty one on the same socket. */
  async restartServer(): Promise<void> {
    await this.remember();
    const serverPid = Number((await this.tmux('display', '-p', '#{pid}')).stdout.trim());
    await this.tmux('kill-server');
    // ended means its process is gone: while it exits it still holds the socket, and a new
    // session started then reaches the dying server ("server exited unexpectedly")
    const gone = await until(async () => ((await this.tmux('list-sessions')).code !== 0 && !(serverPid > 0 && pidAlive(serverPid)) ? true : undefined), 10_000);
    if (!gone) throw new Error('the tmux server did not end');
    const s = await run('tmux', tmuxArgv(['-L', this.socketName, '-f', '/dev/null'], ['new-session', '-d', '-s', 'work', '-x', '120', '-y', '40', '-c', this.project, 'sh']), this.env);
    if (s.code !== 0) throw new Error(`tmux new-session failed: ${s.stderr}`);
    await this.remember();
  }

  /** Follows another window of the same agent (after a restore). */
  follow(row: Row): void {
    this.window = row.window;
    this.pane = row.pane;
  }

  /** Notes the pids of the tmux server, the supervisor and every marked process, for cleanup. */
  async remember(): Promise<void> {
    const r = await this.tmux('display', '-p', '#{pid}');
    if (r.code === 0 && r.stdout.trim()) this.note(Number(r.stdout.trim()));
    const sup = await this.tmux('show-options', '-gv', '@nerdr_supervisor_pid');
    if (sup.code === 0 && /^\d+$/.test(sup.stdout.trim())) this.note(Number(sup.stdout.trim()));
    for (const p of markedPids(this.id)) this.note(p);
  }

  /** The command line nerdr gave the agent (window option @nerdr_argv). */
  async launchedArgv(): Promise<string[]> {
    const r = await this.tmux('show-options', '-wv', '-t', this.window, '@nerdr_argv');
    try {
      return JSON.parse(r.stdout.trim()) as string[];
    } catch {
      return [];
    }
  }

  async rows(): Promise<Row[]> {
    const r = await this.nerdr('ls', '--json');
    if (r.code !== 0) throw new Error(`nerdr ls --json failed: ${r.stderr}`);
    return JSON.parse(r.stdout) as Row[];
  }

  async row(): Promise<Row | undefined> {
    return (await this.rows()).find((x) => x.pane === this.pane);
  }

  async explain(): Promise<string> {
    const r = await this.nerdr('explain', this.pane);
    return (r.stdout + r.stderr).trim();
  }

  async explainJson(): Promise<Record<string, unknown> | null> {
    const r = await this.nerdr('explain', this.pane, '--json');
    try {
      return JSON.parse(r.stdout) as Record<string, unknown>;
    } catch {
      return null;
    }
  }

  /**
   * The screen itself shows a dialog (the manifest's blocker is visible). A hook may say blocked
   * before the agent has drawn its dialog, and a key pressed then is lost: a person answers what
   * they see, so the suite does too.
   */
  async dialogOnScreen(): Promise<boolean> {
    const d = (await this.explainJson())?.detection as { visibleBlocker?: boolean; state?: string } | null | undefined;
    return d?.visibleBlocker === true || d?.state === 'blocked';
  }

  async capture(): Promise<Screen> {
    const plain = await this.tmux('capture-pane', '-p', '-t', this.pane);
    const ansi = await this.tmux('capture-pane', '-p', '-e', '-t', this.pane);
    return { plain: plain.stdout, ansi: ansi.stdout };
  }

  /** Saves the screen as <screensDir>/<phase>.txt and .ansi.txt. */
  save(phase: string, screen: Screen): void {
    const dir = this.opts.screensDir;
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${phase}.txt`), screen.plain);
    writeFileSync(path.join(dir, `${phase}.ansi.txt`), screen.ansi);
    this.screens.set(phase, screen);
  }

  /**
   * Waits until nerdr reports one of `states` for this agent, then saves the screen under
   * `phase`. On timeout: saves the screen anyway and throws with the screen and `nerdr explain`.
   */
  async expectState(phase: string, states: string[], timeoutMs: number, also?: (row: Row, screen: Screen) => boolean | Promise<boolean>): Promise<Row> {
    let last: Row | undefined;
    const hit = await until(async () => {
      last = await this.row();
      if (!last || !states.includes(last.state)) return undefined;
      if (!also) return last;
      const screen = await this.capture();
      return (await also(last, screen)) ? last : undefined;
    }, timeoutMs);
    const screen = await this.capture();
    this.save(phase, screen);
    if (hit) return hit;
    const explain = await this.explain();
    throw new PhaseError(
      `${this.opts.agent} ${phase}: expected state ${states.join(' or ')} within ${timeoutMs} ms, nerdr says ${last?.state ?? 'nothing (no row)'}\n` +
        `---- screen (${this.pane}) ----\n${screen.plain}\n---- nerdr explain ${this.pane} ----\n${explain}\n`,
    );
  }

  /**
   * Waits for the agent's prompt (`readyText`), answering the startup dialogs it knows on the way
   * (each saved as `startup-dialog`, and told to `onDialog`). The screen when ready, or undefined.
   */
  async untilReady(startupDialogs: [RegExp, string[]][], readyText: RegExp, timeoutMs: number, onDialog: (re: RegExp) => void = () => undefined): Promise<Screen | undefined> {
    return until(async () => {
      const s = await this.capture();
      for (const [re, keys] of startupDialogs) {
        if (re.test(s.plain)) {
          this.save('startup-dialog', s);
          onDialog(re);
          await this.keys(...keys);
          return undefined;
        }
      }
      return readyText.test(s.plain) ? s : undefined;
    }, timeoutMs, 250);
  }

  /**
   * Before a prompt: the agent back at rest (idle or done; with `readyText`, also its prompt on
   * screen while nerdr says neither working nor blocked). A dialog left by a failed phase is
   * dismissed with `denyKeys`, every 3 s at most. Gives up after 30 s.
   */
  async settle(denyKeys: string[], readyText?: RegExp): Promise<void> {
    let lastEsc = 0;
    await until(async () => {
      const r = await this.row().catch(() => undefined);
      if (r && (r.state === 'idle' || r.state === 'done')) return true;
      if (readyText && readyText.test((await this.capture()).plain) && r?.state !== 'working' && r?.state !== 'blocked') return true;
      if (r?.state === 'blocked' && Date.now() - lastEsc > 3000) {
        lastEsc = Date.now();
        await this.keysStepwise(denyKeys);
      }
      return undefined;
    }, 30_000, 250);
  }

  /** Waits for text on the agent's screen. */
  async expectScreen(what: string | RegExp, timeoutMs: number): Promise<Screen> {
    const test = (s: string): boolean => (typeof what === 'string' ? s.includes(what) : what.test(s));
    let screen: Screen = { plain: '', ansi: '' };
    const hit = await until(async () => {
      screen = await this.capture();
      return test(screen.plain) ? screen : undefined;
    }, timeoutMs);
    if (hit) return hit;
    throw new PhaseError(`${this.opts.agent}: ${String(what)} did not appear within ${timeoutMs} ms\n---- screen ----\n${screen.plain}\n---- nerdr explain ----\n${await this.explain()}\n`);
  }

  async keys(...keys: string[]): Promise<void> {
    const r = await this.tmux('send-keys', '-t', this.pane, ...keys);
    if (r.code !== 0) throw new Error(`send-keys ${keys.join(' ')}: ${r.stderr}`);
  }

  /** Sends keys one at a time, each after the screen reacted to the one before (or 2 s passed), at least 300 ms apart. */
  async keysStepwise(keys: string[]): Promise<void> {
    for (const [i, k] of keys.entries()) {
      const before = (await this.capture()).plain;
      const sent = Date.now();
      await this.keys(k);
      await until(async () => ((await this.capture()).plain !== before ? true : undefined), 2000, 50);
      // an animated screen (opencode's and Kilo's bar) changes at once: the next key still comes a
      // person's beat later, or two Escapes arrive as one Alt+Esc and the turn goes on
      const beat = sent + 300 - Date.now();
      if (i < keys.length - 1 && beat > 0) await until(async () => (Date.now() >= sent + 300 ? true : undefined), beat + 50, 25);
    }
  }

  /**
   * Types a prompt, waits until the agent shows it, then presses Enter. An agent that is still
   * drawing (a resumed conversation) can drop the keys: when the text is not on screen after 5 s and
   * the empty input (`emptyInput`) is, nothing was taken, and the text is typed again (twice at most).
   */
  async prompt(text: string, emptyInput?: RegExp): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const r = await this.tmux('send-keys', '-t', this.pane, '-l', text);
      if (r.code !== 0) throw new Error(`send-keys: ${r.stderr}`);
      const last = attempt === 2 || !emptyInput;
      const shown = await until(async () => ((await this.capture()).plain.includes(text) ? true : undefined), last ? 10_000 : 5000);
      if (shown) break;
      if (last || !emptyInput.test((await this.capture()).plain)) await this.expectScreen(text, 1000);
    }
    await this.keys('Enter');
  }

  /** A real client attached through a pty (script), as a person at a terminal would be. */
  async attach(): Promise<void> {
    if (this.client) return;
    const child = spawn('script', ['-qfec', `stty rows 40 cols 120; exec tmux -L ${this.socketName} attach -t work`, '/dev/null'], {
      env: this.env,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    this.client = child;
    if (child.pid) this.note(child.pid);
    const ok = await until(async () => {
      const r = await this.tmux('list-clients', '-F', '#{client_control_mode} #{client_session}');
      return r.stdout.split('\n').some((l) => l.startsWith('0 work')) ? true : undefined;
    }, 10_000);
    if (!ok) throw new Error('the attached client did not show up in list-clients');
  }

  async detach(): Promise<void> {
    const c = this.client;
    if (!c) return;
    this.client = null;
    await this.tmux('detach-client', '-s', 'work');
    c.kill('SIGTERM');
    await until(async () => (c.exitCode !== null || c.signalCode !== null ? true : undefined), 5000);
  }

  /** Ends everything this run started: the client, the tmux server, the supervisor, the agent. */
  async cleanup(): Promise<string[]> {
    const notes: string[] = [];
    await this.remember().catch(() => undefined);
    await this.detach().catch(() => undefined);
    const server = (await this.tmux('display-message', '-p', '#{pid} #{socket_path}')).stdout.trim();
    const serverPid = Number(server.split(' ')[0]);
    const socketPath = server.slice(server.indexOf(' ') + 1);
    await this.tmux('kill-server');
    if (serverPid > 0) this.note(serverPid);
    for (const p of markedPids(this.id)) this.note(p);
    const pids = [...this.pids].filter(([p, start]) => sameProcessAlive(p, start)).map(([p]) => p);
    for (const p of pids) {
      try {
        process.kill(p, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
    await until(async () => (pids.every((p) => !pidAlive(p)) ? true : undefined), 5000);
    for (const p of pids.filter(pidAlive)) {
      notes.push(`pid ${p} ignored SIGTERM; killed`);
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    const left = markedPids(this.id);
    for (const p of left) {
      notes.push(`pid ${p} (${readCmd(p)}) was still running after the tmux server ended; killed`);
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    // tmux 3.3 leaves its socket file behind after kill-server
    if (serverPid > 0 && socketPath.includes(this.socketName) && !pidAlive(serverPid)) rmSync(socketPath, { force: true });
    return notes;
  }

  supervisorLog(): string {
    try {
      const f = readdirSync(this.stateDir).find((n) => n.startsWith('core-') && n.endsWith('.log'));
      return f ? readFileSync(path.join(this.stateDir, f), 'utf8') : '';
    } catch {
      return '';
    }
  }

  file(rel: string): boolean {
    return existsSync(path.join(this.project, rel));
  }
}

function readCmd(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim().slice(0, 120);
  } catch {
    return '?';
  }
}
