// tmux holds the supervisor: it runs in the one pane of the hidden session's `_supervisor`
// window, which stays when its program exits (remain-on-exit) and whose own pane-died hook
// respawns it. A kill -9, a crash or an OOM kill is followed by a new supervisor at once, with
// no nerdr command typed and no daemon of nerdr's own. A stop on purpose turns remain-on-exit
// off first, so the pane closes and stays closed until a command needs a supervisor again.
//
// tmux forgets a pane's environment when it respawns it (spawn.c takes the session's), so the
// hook hands the supervisor's own environment back with -e, and a respawned supervisor arms the
// hook again with what it got. tmux 3.3a does not always run pane-died, so the hidden session's
// client-detached hook respawns a dead holder too (armArgs). A supervisor that crashes in a loop
// does not spin: each start is recorded, and a start that follows three early crashes in a row
// (each within 3 s of its start) waits first (2 s, doubling up to a minute), saying why in the
// log and to `nerdr doctor` (see startDelay).

import { readFileSync } from 'node:fs';
import { command, escapeFormat } from '../tmux/quote.js';
import { writeFileAtomic } from '../store/atomic.js';
import { HIDDEN_SESSION } from './discover.js';

export const HOLDER_WINDOW = '_supervisor';
/** Set on the holder's window; `nerdr doctor` and the CLI find it by this. */
export const HOLDER_OPTION = '@nerdr_holder';

/**
 * glibc's malloc for the supervisor, unless the caller set it: blocks of 64 KiB and more (Node
 * reads every pipe and socket into a fresh 64 KiB buffer) are mapped and unmapped whole. glibc's
 * default raises that threshold to the largest block freed, after which such blocks come from the
 * main heap, and what is left of them there pins its high-water mark: 38 MB of it stayed resident
 * after 101 windows opened, 15 MB with this, for 7 % more CPU in a flood (docs/performance.md,
 * "Where the memory goes").
 */
export const SUPERVISOR_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '65536' };

/**
 * V8's flags for the supervisor. Its heap is a few MB of long-lived objects (mirrors, manifests)
 * and a stream of short-lived strings from tmux; V8's default young generation grows to 32 MB of
 * RSS for that stream alone. A 1 MB semi-space and V8's size-first tiering took a supervisor with
 * 101 claude windows from 114 – 119 MB to 98 MB at the same CPU (docs/performance.md, "Where the
 * memory goes").
 */
export const SUPERVISOR_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--optimize-for-size'];

/** The environment the supervisor is started (and respawned) with: SUPERVISOR_ENV, then the caller's, less tmux's own. */
export function holderEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = { ...SUPERVISOR_ENV };
  for (const [k, v] of Object.entries(env)) {
    if (typeof v !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || v.includes('\0')) continue;
    // a window's secret stays with its window (the hook is readable with show-hooks)
    if (k === 'TMUX' || k === 'TMUX_PANE' || k === 'NERDR_DETACHED' || k === 'NERDR_TAB') continue;
    out[k] = v;
  }
  return out;
}

function envArgs(env: Record<string, string>): string[] {
  return Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
}

/**
 * The holder pane's program: a fixed sh line (the paths are parameters, never script) that runs
 * the supervisor with its output appended to its log, and ends with it. The pane prints nothing:
 * before tmux 3.3 a pane kept on exit that dies owing a control client output can crash the
 * server (tmux issue 2828). sh stays, holding the pane's terminal: tmux takes a pane whose
 * terminal no process holds open for ended and hangs it up, and a Node whose stdin is a
 * terminal aborts on exit when that terminal is gone.
 */
export function holderArgv(node: string, bin: string, socket: string, log: string): string[] {
  return ['/bin/sh', '-c', 'l=$1; shift; "$@" </dev/null >>"$l" 2>&1', 'nerdr-supervisor', log, node, ...SUPERVISOR_NODE_FLAGS, bin, '-S', socket, 'supervise', '--holder'];
}

/** tmux's argv (after `-S socket`) that makes the holder window running `argv`. */
export function newHolderArgs(env: Record<string, string>, argv: string[]): string[] {
  return ['new-window', '-d', '-P', '-F', '#{pane_id}', '-t', `=${HIDDEN_SESSION}:`, '-n', HOLDER_WINDOW, ...envArgs(env), '--', ...argv];
}

/**
 * tmux's argv that a supervisor in the holder pane runs first: keep the pane on exit, respawn it
 * when it dies (with this environment), and mark the window.
 */
export function armArgs(pane: string, env: Record<string, string>, tmuxVersion = ''): string[] {
  const respawn = command('respawn-pane', '-t', pane, ...envArgs(env));
  // the fallback runs the pane's own pane-died hook (-R): the environment is in one hook, not in
  // three (a tmux command line holds 16 KB; three copies, quoted once more inside the guard, took
  // `npm test`'s environment past it on 3.3)
  const runPaneDied = command('set-hook', '-R', '-p', '-t', pane, 'pane-died');
  return [
    'set-option', '-p', '-t', pane, 'remain-on-exit', 'on', ';',
    'set-hook', '-p', '-t', pane, 'pane-died', ifDeadPane(pane, respawn), ';',
    // tmux 3.3a sometimes never runs pane-died for a dead pane (3 kill -9s in 12 here; 3.2a and
    // 3.7c always did), and the holder stays dead. The supervisor's control clients detach when
    // it dies, whatever tmux knows of the pane: a second after that the pane is respawned, and on
    // 3.3 already 0.2 s after (a revival within 2 s even then; the second try is for a pane not
    // yet dead at the first, on a loaded machine). The respawn runs only while the pane is there
    // and dead (ifDeadPane): a pane alive again (pane-died came first) or gone (a stop on purpose)
    // is left alone, and the command does not fail (a failing one set up a server crash: see
    // ifDeadPane). run-shell expands formats once in what it runs: escapeFormat keeps the
    // condition literal. -b: a run-shell that waits holds up every command queued behind it,
    // pane-died's too.
    ...detachHooks(tmuxVersion).flatMap(({ hook, delay }) => ['set-hook', '-t', `=${HIDDEN_SESSION}:`, hook, command('run-shell', '-b', '-d', delay, '-C', escapeFormat(ifDeadPane(pane, runPaneDied))), ';']),
    'set-option', '-w', '-t', pane, HOLDER_OPTION, '1',
  ];
}

/**
 * `command` as a tmux command that runs only while pane `pane` exists and is dead, and that never
 * fails. A command that fails with no client to tell (the fallback respawn runs a second after the
 * supervisor's client left, when often no client is attached) becomes a pending "configuration
 * error", which tmux writes to the first client in its list at the next attach-session or
 * new-session. When that client is a control client still identifying itself (it has sent that
 * it is one, not yet that it is done), it has no control state yet, and tmux 3.2a, 3.3a and 3.7c
 * segfault in control_write (cfg_show_causes): the whole server, every agent with it. A revived
 * supervisor attaching its control clients is that moment. `#{S:#{W:#{P:…}}}` walks every pane
 * and needs no target, so a pane that is gone is no error either.
 */
export function ifDeadPane(pane: string, cmd: string): string {
  return command('if-shell', '-F', `#{S:#{W:#{P:#{?#{&&:#{==:#{pane_id},${pane}},#{pane_dead}},1,}}}}`, cmd);
}

/** The hidden session's hooks that may respawn a dead holder after a control client left (index 0 repaints the lights). */
export const DETACH_HOOKS = ['client-detached[1]', 'client-detached[2]'] as const;

/** Which of them are set, and when they respawn (s): twice on tmux 3.3, which can miss pane-died; else once, a second after. */
export function detachHooks(tmuxVersion: string): { hook: string; delay: string }[] {
  return /^tmux 3\.3/.test(tmuxVersion)
    ? [{ hook: DETACH_HOOKS[0], delay: '0.2' }, { hook: DETACH_HOOKS[1], delay: '1' }]
    : [{ hook: DETACH_HOOKS[0], delay: '1' }];
}

/** tmux's argv that lets the holder pane close with its program: a stop on purpose. */
export function disarmArgs(pane: string): string[] {
  return [
    'set-option', '-p', '-t', pane, 'remain-on-exit', 'off', ';',
    'set-hook', '-p', '-u', '-t', pane, 'pane-died',
    ...DETACH_HOOKS.flatMap((hook) => [';', 'set-hook', '-u', '-t', `=${HIDDEN_SESSION}:`, hook]),
  ];
}

/** The holder as `list-windows` shows it: `#{window_name}\t#{pane_id}\t#{pane_dead}\t#{pane_pid}`. */
export interface HolderPane {
  pane: string;
  dead: boolean;
  pid: number;
}

export const HOLDER_LIST_FORMAT = `#{window_name}\t#{pane_id}\t#{pane_dead}\t#{pane_pid}\t#{${HOLDER_OPTION}}`;

/** The holder among `_nerdr`'s windows (list-panes -s with HOLDER_LIST_FORMAT), or null. Pure. */
export function findHolder(listing: string): HolderPane | null {
  for (const line of listing.split('\n')) {
    const [name, pane = '', dead, pid, mark] = line.split('\t');
    if (name !== HOLDER_WINDOW && mark !== '1') continue;
    if (!/^%\d+$/.test(pane)) continue;
    return { pane, dead: dead === '1', pid: Number(pid) || 0 };
  }
  return null;
}

// ---- starts, crashes and back-off (pure, the clock passed in) -----------------------------

export interface StartRecord {
  /** When it started (ms). */
  at: number;
  /** When it went on after waiting out a crash loop (ms); its life is counted from here. */
  ready?: number;
  pid: number;
  /** How it ended: null while it runs (or when it was killed without a word), else the reason, and what to do when its error said. */
  ended: { at: number; clean: boolean; why: string; fix?: string } | null;
}

/** A supervisor that ended sooner than this after its start crashed early: a loop, if it repeats. */
export const SHORT_LIFE_MS = 3000;
/** This many early crashes in a row make the next start wait. */
export const LOOP_CRASHES = 3;
export const MAX_DELAY_MS = 60_000;
const KEEP = 20;

/** How long each start lived: until its recorded end, else until the next start (a kill -9 writes nothing). */
function lifetimes(starts: StartRecord[]): { start: StartRecord; ms: number | null; crashed: boolean }[] {
  const sorted = [...starts].sort((a, b) => a.at - b.at);
  return sorted.map((s, i) => {
    const end = s.ended?.at ?? sorted[i + 1]?.at ?? null;
    return { start: s, ms: end === null ? null : end - (s.ready ?? s.at), crashed: !(s.ended?.clean ?? false) };
  });
}

/** The early crashes in a row that end the record (newest first): each a start that died within SHORT_LIFE_MS. */
export function recentCrashes(starts: StartRecord[]): StartRecord[] {
  const out: StartRecord[] = [];
  const lives = lifetimes(starts);
  for (let i = lives.length - 1; i >= 0; i--) {
    const l = lives[i]!;
    if (l.ms === null) continue; // the one running now, or whose end is not known yet
    if (!l.crashed || l.ms >= SHORT_LIFE_MS) break;
    out.push(l.start);
  }
  return out;
}

/**
 * How long a start waits before it runs, and why: nothing after a supervisor that ran a while
 * was killed (tmux revives it at once, however often), 2 s after three early crashes in a row,
 * doubling with each more, a minute at most. `now` is when this start came.
 */
export function startDelay(starts: StartRecord[], now: number): { ms: number; why: string } | null {
  const crashes = recentCrashes([...starts.filter((s) => s.at <= now), { at: now, pid: -1, ended: null }]);
  if (crashes.length < LOOP_CRASHES) return null;
  const ms = Math.min(MAX_DELAY_MS, 2000 * 2 ** (crashes.length - LOOP_CRASHES));
  const last = crashes[0]!;
  const why = last.ended?.why ? `last: ${last.ended.why}` : 'last: killed without a word (kill -9, the OOM killer)';
  return { ms, why: `the supervisor ended ${crashes.length} times in a row within ${SHORT_LIFE_MS / 1000} s of starting (${why})` };
}

/** The record with this start added (and old ones dropped). Pure. */
export function withStart(starts: StartRecord[], at: number, pid: number): StartRecord[] {
  return [...starts, { at, pid, ended: null }].slice(-KEEP);
}

/** The record with this pid's wait over. Pure. */
export function withReady(starts: StartRecord[], pid: number, at: number): StartRecord[] {
  return starts.map((s) => (s.pid === pid && s.ended === null ? { ...s, ready: at } : s));
}

/** The record with this pid's end written. Pure. */
export function withEnd(starts: StartRecord[], pid: number, at: number, clean: boolean, why: string, fix?: string): StartRecord[] {
  return starts.map((s) => (s.pid === pid && s.ended === null ? { ...s, ended: { at, clean, why, ...(fix ? { fix } : {}) } } : s));
}

/**
 * Why the supervisor failed while a command waited for it since `since` (ms): the newest end
 * after then that was not on purpose (a crash, a failed start, a lost tmux client), or null.
 * The CLI says it at once instead of waiting out its 10 s. Pure.
 */
export function startFailure(starts: StartRecord[], since: number): { why: string; fix?: string } | null {
  const ended = starts.filter((s) => s.ended && !s.ended.clean && s.ended.at >= since).sort((a, b) => b.ended!.at - a.ended!.at)[0]?.ended;
  return ended ? { why: ended.why, ...(typeof ended.fix === 'string' ? { fix: ended.fix } : {}) } : null;
}

/**
 * A supervisor that started since `since` (ms) and runs, not yet answering: the newest such
 * start, or null. `alive` says whether a pid runs. Pure.
 */
export function startingNow(starts: StartRecord[], since: number, alive: (pid: number) => boolean): StartRecord | null {
  return starts.filter((s) => s.ended === null && s.at >= since && alive(s.pid)).sort((a, b) => b.at - a.at)[0] ?? null;
}

/**
 * A crash loop under way: the newest start, waiting out the delay startDelay gave it, and when it
 * tries again (ms), or null when no start waits. Pure.
 */
export function waitingStart(starts: StartRecord[]): { until: number; why: string } | null {
  const waiting = starts.filter((s) => s.ended === null && s.ready === undefined).sort((a, b) => b.at - a.at)[0];
  if (!waiting) return null;
  const delay = startDelay(starts.filter((s) => s !== waiting), waiting.at);
  return delay ? { until: waiting.at + delay.ms, why: delay.why } : null;
}

/**
 * What a supervisor that died before it could write its start record (a tmux too old, no tmux
 * server, a broken install) left in its log (`text`: what was appended while the command
 * waited): the CLI's own `nerdr: …` error line with its `  fix: …`, else the first line naming an
 * Error (Node's report of a crash), else null. Pure.
 */
export function failureInLog(text: string): { why: string; fix?: string } | null {
  const lines = text.split('\n');
  // an error always has its fix line (src/errors.ts render); a warning (`nerdr: …` alone) is no failure
  const at = lines.findIndex((l, i) => l.startsWith('nerdr: ') && lines[i + 1]?.startsWith('  fix: '));
  if (at >= 0) return { why: lines[at]!.slice('nerdr: '.length), fix: lines[at + 1]!.slice('  fix: '.length) };
  const error = lines.find((l) => /^([A-Z]\w*)?Error\b/.test(l));
  return error ? { why: error.trim() } : null;
}

export function readStarts(file: string): StartRecord[] {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed.filter((s): s is StartRecord => !!s && typeof s === 'object' && typeof (s as StartRecord).at === 'number' && typeof (s as StartRecord).pid === 'number');
  } catch {
    return [];
  }
}

export function writeStarts(file: string, starts: StartRecord[]): void {
  try {
    writeFileAtomic(file, JSON.stringify(starts));
  } catch {
    // the record only paces restarts: a start is never refused for it
  }
}
