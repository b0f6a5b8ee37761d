// What every command needs: which tmux server, and a supervisor to talk to.

import type { Command } from 'commander';
import { NerdrError, socketError } from '../errors.js';
import { checkTmuxVersion, resolveSocket, serverRunning, tmux } from '../tmux/server.js';
import { ensureStateDir, nerdrBin, serverFiles } from '../paths.js';
// the socket's client alone: its index also loads the server and every integration
import { request, SocketRequestError } from '../supervisor/socket/client.js';
import { argvSafe } from '../tmux/quote.js';
import { HIDDEN_SESSION } from '../supervisor/discover.js';
import { failureInLog, findHolder, HOLDER_LIST_FORMAT, holderArgv, holderEnvironment, newHolderArgs, readStarts, startDelay, startFailure, startingNow, waitingStart } from '../supervisor/holder.js';
import { readFileSync, statSync } from 'node:fs';
import { pidAlive, readLockHolder, tryLock } from '../store/lock.js';

// how a failed request is reported: in errors.ts, which the fast reads (read-fast.ts) load alone
export { socketError };

export interface GlobalOptions {
  L?: string;
  S?: string;
}

export function globalOpts(cmd: Command): GlobalOptions {
  let root = cmd;
  while (root.parent) root = root.parent;
  return root.opts<GlobalOptions>();
}

/** The tmux socket for this invocation; checks tmux's version and that the server runs. */
export async function tmuxSocket(cmd: Command, { mustRun = true } = {}): Promise<string> {
  await checkTmuxVersion();
  const g = globalOpts(cmd);
  const sock = resolveSocket({ name: g.L, socket: g.S });
  if (mustRun && !(await serverRunning(sock))) {
    const start = g.L ? `tmux -L ${g.L} new -s work` : g.S ? `tmux -S ${g.S} new -s work` : 'tmux new -s work';
    throw new NerdrError(`no tmux server is running at ${sock}`, `start it first (\`${start}\`), or name the right server with -L / -S`);
  }
  return sock;
}

interface Info {
  pid: number;
  ready: boolean;
  /** The tmux server it watches (older supervisors leave it out). */
  serverPid?: number | null;
}

async function info(socketFile: string, timeoutMs = 1500): Promise<Info | null> {
  try {
    return (await request(socketFile, 'nerdr.info', {}, { timeoutMs })) as Info;
  } catch (err) {
    if (err instanceof SocketRequestError) return null;
    throw err;
  }
}

/**
 * The secret of the agent window this command runs in (NERDR_TAB), or undefined at a person's
 * shell: the supervisor limits what an agent may do to other windows (src/supervisor/control.ts).
 * Not HERDR_PANE_ID: in a real herdr pane that is herdr's pane, not a nerdr window.
 */
export function callerSecret(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.NERDR_TAB || undefined;
}

/** True when this tmux server's supervisor answers (nothing is started). */
export async function supervisorAnswers(sock: string): Promise<boolean> {
  return (await info(serverFiles(sock).socket, 1000)) !== null;
}

/**
 * Starts the supervisor for this tmux server if none answers; returns its socket path. A start
 * that fails is said at once, with its reason: the start record's (src/supervisor/holder.ts,
 * written by src/supervisor/main.ts), or, when it died before writing one, what it left in its
 * log. Only a supervisor that says nothing is waited for, 10 s; 30 s while it runs and has not
 * answered yet (a loaded machine), said on stderr.
 */
export async function ensureSupervisor(sock: string): Promise<string> {
  ensureStateDir(process.env, (m) => process.stderr.write(`nerdr: ${m}\n`));
  const files = serverFiles(sock);
  // a supervisor of a server that was killed, with another started at the same socket since, may
  // answer for a moment before it sees that and stops: it is not this server's
  const serverPid = Number((await tmux(sock, ['display', '-p', '#{pid}'])).stdout.trim()) || null;
  const ours = (i: Info | null): boolean => !!i?.ready && (serverPid === null || typeof i.serverPid !== 'number' || i.serverPid === serverPid);
  const answered = await info(files.socket);
  if (ours(answered)) return files.socket;
  const first = answered && !ours(answered) && answered.ready ? null : answered;
  const since = Date.now();
  const logFrom = fileSize(files.log);
  let deadline = since + 10_000;
  let extended = false;
  // the holder is looked at again every half second: a supervisor that was just stopped may still
  // be closing its pane when this command first looks
  let lookAgain = 0;
  let started = false;
  // one command at a time starts it (a lock while it waits): twelve `nerdr new &` at once started
  // up to seven supervisors on a loaded machine, six of them only to close again, and each of the
  // twelve asked tmux for the holder twice a second; the others wait for it to answer, and take
  // over when the one starting it is gone
  let starting: (() => void) | null = null;
  try {
    for (;;) {
      if (Date.now() >= deadline) {
        // a supervisor that started lately and runs, not answering yet, is slow (a loaded
        // machine), not silent: it is given 20 s more, and the wait is said
        const runs = extended ? null : startingNow(readStarts(files.starts), since - 10_000, pidAlive);
        if (!runs) break;
        extended = true;
        deadline += 20_000;
        process.stderr.write(`nerdr: the supervisor (pid ${runs.pid}) is still starting; waiting up to 20 s more\n`);
      }
      if (!first && Date.now() >= lookAgain) {
        starting ??= startLock(files.starting);
        if (starting) {
          const now = await startHolder(sock, files.log);
          // started again: the one started before is gone, before its start record could say why
          if (now === 'started' && started) {
            const left = failureInLog(logSince(files.log, logFrom));
            if (left) throw supervisorFailed(left.why, files.log, left.fix);
          }
          started ||= now === 'started';
        }
        lookAgain = Date.now() + 500;
      }
      const i = await info(files.socket, 500);
      if (ours(i)) return files.socket;
      const starts = readStarts(files.starts);
      const failed = startFailure(starts, since);
      if (failed) throw supervisorFailed(failed.why, files.log, failed.fix);
      // a crash loop that will not try again before the deadline: said now, not in 10 s
      const waiting = waitingStart(starts);
      if (waiting && waiting.until > deadline) throw supervisorFailed(`it keeps failing: ${waiting.why}; it tries again in ${Math.ceil((waiting.until - Date.now()) / 1000)} s`, files.log);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    starting?.();
  }
  const delay = startDelay(readStarts(files.starts), Date.now());
  if (delay) throw supervisorFailed(`it keeps failing: ${delay.why}`, files.log);
  const left = failureInLog(logSince(files.log, logFrom));
  if (left) throw supervisorFailed(left.why, files.log, left.fix);
  // another command took the start and never made it (stopped with ^Z, say): named, with its pid
  const holder = readLockHolder(files.starting);
  const by = holder !== null && holder !== process.pid ? `; another nerdr command (pid ${holder}) was starting it and has not finished` : '';
  throw new NerdrError(`the supervisor did not start within ${extended ? 30 : 10} s${by}`, `see its log: ${files.log}; \`nerdr supervise --foreground\` shows it start (or fail) in this terminal`, { code: 'supervisor_failed' });
}

/** The start lock's release when this command took it, null while another live command holds it. */
function startLock(file: string): (() => void) | null {
  const got = tryLock(file);
  return got.ok ? got.release : null;
}

function supervisorFailed(why: string, log: string, fix?: string): NerdrError {
  return new NerdrError(`the supervisor did not start: ${why}`, `${fix ? `${fix}; ` : ''}its log: ${log}; \`nerdr supervise --foreground\` shows it start (or fail) in this terminal`, { code: 'supervisor_failed' });
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** What was appended to the log since it had `from` bytes (all of it when it was rotated since). At most the last 64 KiB. */
function logSince(file: string, from: number): string {
  try {
    const text = readFileSync(file);
    const start = text.length < from ? 0 : from;
    return text.subarray(Math.max(start, text.length - 65536)).toString('utf8');
  } catch {
    return '';
  }
}

/**
 * Starts the supervisor in tmux's holder pane (src/supervisor/holder.ts), unless one is there:
 * a live one is starting (or waiting out a crash loop), a dead one is respawned. Says which.
 */
async function startHolder(sock: string, log: string): Promise<'running' | 'started'> {
  const { tmux } = await import('../tmux/server.js');
  // the control client's module and its parser load only when a supervisor must be started
  const { ensureHiddenSession } = await import('../supervisor/channel.js');
  await ensureHiddenSession(sock);
  const listed = await tmux(sock, ['list-panes', '-s', '-t', `=${HIDDEN_SESSION}`, '-F', HOLDER_LIST_FORMAT]);
  const holder = listed.code === 0 ? findHolder(listed.stdout) : null;
  if (holder && !holder.dead) return 'running';
  if (holder) {
    // its own pane-died hook may respawn it first ("pane is active"): either way it runs again
    await tmux(sock, ['respawn-pane', '-t', holder.pane, ...Object.entries(holderEnvironment(process.env)).flatMap(([k, v]) => ['-e', `${k}=${v}`])]);
    return 'started';
  }
  const r = await tmux(sock, newHolderArgs(holderEnvironment(process.env), holderArgv(process.execPath, nerdrBin, sock, log)));
  if (r.code !== 0) throw supervisorFailed(`tmux could not start it: ${r.stderr.trim()}`, log);
  return 'started';
}

/** For a read-only request about one agent when the server has no nerdr window at all. */
export function noAgents(target: string): never {
  throw new NerdrError(`no agent "${target}": this tmux server has no nerdr windows`, 'start one: nerdr new <agent> (or try nerdr demo)');
}

/** True when some pane of the tmux server is one of nerdr's windows (tagged @nerdr_pane). */
export async function hasNerdrWindows(sock: string): Promise<boolean> {
  const { tmux } = await import('../tmux/server.js');
  const r = await tmux(sock, ['list-panes', '-a', '-F', '#{@nerdr_pane}']);
  return r.code === 0 && r.stdout.split('\n').some((l) => l.trim() !== '');
}

/**
 * One request to the supervisor, started on demand. A running supervisor is asked straight
 * away; tmux itself is consulted only when none answers. Errors become NerdrErrors.
 *
 * `whenNone` marks a read-only request: with no supervisor and no nerdr window on the server it
 * is answered with that value, and nothing is started or changed in the user's tmux (a
 * supervisor is started when there are windows to watch: after a crash).
 */
export async function call<T>(cmd: Command, method: string, params: unknown = {}, opts: { timeoutMs?: number; whenNone?: () => T } = {}): Promise<T> {
  const g = globalOpts(cmd);
  let socketFile = serverFiles(resolveSocket({ name: g.L, socket: g.S })).socket;
  const ask = () => request(socketFile, method, params, { timeoutMs: opts.timeoutMs ?? 10_000 }) as Promise<T>;
  try {
    return await ask();
  } catch (err) {
    if (!(err instanceof SocketRequestError)) throw err;
    if (err.code !== 'server_not_running') throw socketError(err);
  }
  const sock = await tmuxSocket(cmd);
  if (opts.whenNone && !(await hasNerdrWindows(sock))) return opts.whenNone();
  socketFile = await ensureSupervisor(sock);
  try {
    return await ask();
  } catch (err) {
    if (err instanceof SocketRequestError) throw socketError(err);
    throw err;
  }
}

/** The session of the calling client (inside tmux), or the one named with -t. */
export async function callerSession(sock: string, explicit: string | undefined): Promise<string> {
  const { tmux } = await import('../tmux/server.js');
  if (explicit) {
    // `-t demo` alone would also match a window named demo-… in another session
    // and tmux 3.3a's `display -p -t '=nosuch:'` prints nothing and exits 0: has-session decides
    const exact = explicit.startsWith('$') ? explicit : `=${explicit}`;
    const has = await tmux(sock, ['has-session', '-t', argvSafe(exact)]);
    const r = has.code === 0 ? await tmux(sock, ['display', '-p', '-t', argvSafe(`${exact}:`), '#{session_id}']) : has;
    const id = r.code === 0 ? r.stdout.trim() : '';
    if (!id || explicit === HIDDEN_SESSION) {
      const ls = await tmux(sock, ['list-sessions', '-F', '#{session_name}']);
      const names = ls.stdout.split('\n').filter((n) => n && n !== HIDDEN_SESSION);
      throw new NerdrError(
        `no tmux session "${explicit}"`,
        names.length ? `name one of: ${names.join(', ')} (or start it: tmux new -d -s ${JSON.stringify(explicit)})` : `the server has no session: start one with tmux new -d -s ${JSON.stringify(explicit)}`,
      );
    }
    return id;
  }
  const pane = process.env.TMUX_PANE;
  if (pane && process.env.TMUX) {
    const r = await tmux(sock, ['display', '-p', '-t', pane, '#{session_id}']);
    if (r.code === 0) return r.stdout.trim();
  }
  const r = await tmux(sock, ['list-sessions', '-F', '#{session_id}\t#{session_name}\t#{session_attached}']);
  const sessions = r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')).filter((s) => s[1] !== '_nerdr');
  const attached = sessions.find((s) => s[2] !== '0') ?? sessions[0];
  if (!attached) throw new NerdrError('the tmux server has no session to put the window in', 'name one with -t SESSION, or start one with `tmux new -s work`');
  return attached[0]!;
}
