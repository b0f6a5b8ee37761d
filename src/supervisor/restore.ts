// `nerdr.restore`: bring back the agent windows of saved sessions (docs/persistence.md), done by
// the supervisor so that nothing depends on the CLI staying: sessions made through the control
// client, windows created and checked here, a resume that failed at once replaced by a new
// conversation in the same window, queued messages queued again. The decisions are
// src/store/restore-plan.ts (pure); this file does them through a small host (the supervisor, or a
// fake in the unit tests) and reports each window as it is settled.

import { statSync } from 'node:fs';
import { ANY_NOT_FOUND, integrationFor, isAgentId } from '../integrations/index.js';
import type { LaunchPlan } from '../integrations/launch.js';
import { planRestore, type LiveWindow, type PlanContext, type PlannedWindow, type SessionPlan } from '../store/restore-plan.js';
import type { SavedSession } from '../store/sessions.js';
import { command, escapeFormat } from '../tmux/quote.js';
import type { Clock } from './clock.js';
import type { CreatedWindow, RespawnSpec, WindowSpec } from './window-spec.js';
import { hibernatedArgv, type Hibernation } from './hibernate.js';
import { stripControl } from './socket/sanitize.js';

/** How long a resumed agent must live to count as resumed. */
export const RESUME_GRACE_MS = 5000;

/** The line of the screen saying the conversation to resume does not exist (the agent's words, or any agent's), or null. */
export function notFoundOnScreen(agent: string, text: string): string | null {
  for (const re of [integrationFor(agent)?.resume?.notFound, ANY_NOT_FOUND]) {
    if (!re) continue;
    const m = re.exec(text);
    if (m) {
      const line = text.split('\n').find((l) => re.test(l));
      return (line ?? m[0]).trim().slice(0, 160);
    }
  }
  return null;
}

/**
 * The window program when the agent is not installed: says so, waits for Enter, and starts
 * the agent once it is on PATH. No user text is in the script: the agent's name and the
 * argv are positional parameters.
 */
export const MISSING_SCRIPT =
  'a=$1; shift; while ! command -v "$1" >/dev/null 2>&1; do ' +
  'printf \'nerdr: %s is not installed (no "%s" on PATH); install it and press Enter to retry\\n\' "$a" "$1"; ' +
  'read x || exit 1; done; exec "$@"';

export function missingArgv(agent: string, argv: string[]): string[] {
  return ['/bin/sh', '-c', MISSING_SCRIPT, 'nerdr-restore', agent, ...argv];
}

export interface WindowResult {
  session: string;
  index: number | null;
  name: string;
  agent: string;
  cwd: string;
  window: string | null;
  action: 'created' | 'skipped' | 'failed' | 'planned';
  resume: string;
  conversationId: string | null;
  argv: string[];
  why: string;
  note: string | null;
  resumeFailed: string | null;
  installed: boolean;
  requeued: number;
  /** The worktree the window is back in (null: none, or it is gone and `note` says so). */
  worktree: string | null;
  /** Back hibernated, its kept screen shown (docs/lifecycle.md): it resumes when woken. */
  hibernated?: boolean;
}

/** What a restored window's agent looks like to the restore: a WatchedAgent's few fields. */
export interface RestoreAgent {
  readonly paneId: string;
  readonly generation: number;
  readonly dead: boolean;
}

/** What the restore needs of the supervisor. */
export interface RestoreHost<A extends RestoreAgent = RestoreAgent> {
  readonly clock: Clock;
  /** One tmux command through the control client; rejects with tmux's words. */
  run(cmd: string): Promise<string>;
  /** The agent windows watched now. */
  live(): LiveWindow[];
  agent(pane: string): A | undefined;
  /**
   * The agent's screen and recent history as text, taken from tmux now: the mirror of a process
   * that printed one line and exited can have been seeded after tmux's "Pane is dead" line had
   * already scrolled that line off the screen.
   */
  screen(a: A): Promise<string>;
  createWindow(spec: WindowSpec): Promise<CreatedWindow>;
  respawn(a: A, spec: RespawnSpec): Promise<void>;
  /**
   * Queues a saved message again under its own id; returns why it was not (its id is queued
   * or was typed in already), or null. Throws when the queue cannot be written.
   */
  requeue(a: A, message: { id: string; text: string }): string | null;
  /** Calls `fn` on every change of any window; returns the unsubscribe. */
  onChange(fn: () => void): () => void;
  /** Marks a window made to show a hibernated agent's kept screen as hibernated (docs/lifecycle.md). */
  hibernated(a: A, h: Hibernation): Promise<void>;
}

/** What comes from the caller (the `nerdr restore` process) and the machine. */
export interface RestoreEnv {
  /** The environment of the shell running restore: the windows get it, as with `nerdr new`. */
  callerEnv: Record<string, string>;
  home: string;
  /** The launch with nerdr's wiring (integrations/plan.ts planLaunch). */
  plan(agent: string, args: string[], cwd: string, hooks: boolean): Promise<LaunchPlan>;
  /** Whether a program is installed, on the caller's PATH. */
  onPath(program: string): boolean;
  isDir(p: string): boolean;
  /** Whether a file is there (a hibernated window's kept screen). */
  isFile(p: string): boolean;
  warn(message: string): void;
}

export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

export function baseResult(w: PlannedWindow): WindowResult {
  return {
    session: w.session,
    index: w.index ?? w.saved.index,
    name: w.name,
    agent: w.agent,
    cwd: w.cwd,
    window: null,
    action: 'planned',
    resume: w.resume,
    conversationId: w.conversationId,
    argv: [],
    why: w.why,
    note: w.note || null,
    resumeFailed: null,
    installed: true,
    requeued: 0,
    worktree: w.saved.worktree ?? null,
  };
}

/** The plan for a dry run: each window's argv without nerdr's wiring, and whether it is installed. */
export async function dryRunResults(plans: SessionPlan[], env: RestoreEnv): Promise<WindowResult[]> {
  const results: WindowResult[] = [];
  for (const p of plans) {
    for (const w of p.windows) {
      const res = baseResult(w);
      if (w.action === 'skip') res.action = 'skipped';
      else {
        // hooks off: the argv without nerdr's wiring, and nothing written
        const plan = isAgentId(w.agent) ? await env.plan(w.agent, w.args, env.isDir(w.cwd) ? w.cwd : env.home, false) : { argv: w.saved.argv };
        res.argv = plan.argv;
        res.installed = plan.argv.length > 0 && env.onPath(plan.argv[0]!);
      }
      results.push(res);
    }
  }
  return results;
}

/** What runs on this tmux server now: the agent windows, every window index per session, the sessions. */
export async function liveState(host: RestoreHost): Promise<PlanContext> {
  const occupied: Record<string, number[]> = {};
  for (const line of (await host.run(command('list-windows', '-a', '-F', '#{session_name}\t#{window_index}'))).split('\n')) {
    if (!line) continue;
    const tab = line.lastIndexOf('\t');
    (occupied[line.slice(0, tab)] ??= []).push(Number(line.slice(tab + 1)));
  }
  const sessions = (await host.run(command('list-sessions', '-F', '#{session_name}'))).split('\n').filter(Boolean);
  return { live: host.live(), occupied, sessions };
}

/**
 * The session to restore into: there already (null), or made here with a placeholder window
 * (moved out of the way of the agents' indexes; killed once a window is in). -s and -c are
 * expanded as formats by tmux, so both are escaped for formats.
 */
async function ensureSession(host: RestoreHost, env: RestoreEnv, p: SessionPlan, todo: PlannedWindow[]): Promise<string | null> {
  if (!p.create) return null;
  const firstDir = todo.map((w) => w.cwd).find((d) => env.isDir(d)) ?? env.home;
  let made: string;
  try {
    made = await host.run(command('new-session', '-d', '-s', escapeFormat(p.session), '-c', escapeFormat(firstDir), '-P', '-F', '#{session_id} #{window_id} #{window_index}'));
  } catch (err) {
    throw new Error(`could not create tmux session "${p.session}": ${(err as Error).message}`);
  }
  const [sessionId = '', windowId = '', index = ''] = made.trim().split(' ');
  const wanted = new Set(todo.map((w) => w.index).filter((i): i is number => i !== null));
  if (wanted.has(Number(index))) {
    // the session's first window sits where an agent belongs: move it out of the way
    const free = Math.max(Number(index), ...wanted) + 1;
    await host.run(command('move-window', '-d', '-s', windowId, '-t', `${sessionId}:${free}`));
  }
  return windowId;
}

/** Creates one planned window; fills in the result. */
async function createOne<A extends RestoreAgent>(host: RestoreHost<A>, env: RestoreEnv, w: PlannedWindow, res: WindowResult): Promise<string> {
  let cwd = w.cwd;
  let args = w.args;
  let note = w.note;
  // a window of a worktree comes back in it, tagged again; a worktree removed meanwhile is said
  let worktree = w.saved.worktree ? { path: w.saved.worktree, branch: w.saved.branch ?? '', base: w.saved.base ?? '' } : null;
  if (worktree && !env.isDir(worktree.path)) {
    cwd = env.home;
    args = w.freshArgs;
    note = `the worktree ${worktree.path} (branch ${worktree.branch}) is gone: started a new conversation in ${cwd} (to work on that branch again: nerdr new ${w.agent === 'unknown' ? '--cmd …' : w.agent} --worktree ${worktree.branch})`;
    res.resume = 'fresh';
    res.conversationId = null;
    worktree = null;
  } else if (!env.isDir(cwd)) {
    cwd = env.home;
    args = w.freshArgs;
    note = `the folder ${w.cwd} is gone: started a new conversation in ${cwd}`;
    res.resume = 'fresh';
    res.conversationId = null;
  }
  // hibernated when it was saved: back hibernated, in its conversation, its kept screen shown
  const sleeping = w.saved.hibernated && w.resume === 'id' && res.resume === 'id' && w.conversationId && env.isFile(w.saved.hibernated.screen) ? w.saved.hibernated : null;
  let plan: { argv: string[]; env: Record<string, string>; conversationId?: string; notes: string[] };
  if (sleeping) plan = { argv: hibernatedArgv(sleeping.screen, stripControl(w.name)), env: {}, notes: [] };
  else if (isAgentId(w.agent)) plan = await env.plan(w.agent, args, cwd, true);
  else if (w.saved.argv.length > 0) {
    // not a known agent (a `nerdr new --cmd` window): its saved command runs again as it was
    plan = { argv: w.saved.argv, env: {}, notes: [] };
  } else throw new Error(`${w.agent} is not an agent nerdr can start, and no command was saved for ${w.name}`);
  for (const n of plan.notes) env.warn(`${w.session}:${w.name}: ${n}`);
  let argv = plan.argv;
  const installed = env.onPath(argv[0]!);
  if (!installed) {
    argv = missingArgv(w.agent, argv);
    note = `${w.agent} is not installed: the window waits for it${note ? `; ${note}` : ''}`;
  }
  const conversationId = w.resume === 'id' && res.resume === 'id' ? w.conversationId : (plan.conversationId ?? null);
  const created = await host.createWindow({
    agent: w.agent,
    name: w.name,
    cwd,
    argv,
    userArgs: w.freshArgs,
    env: plan.env,
    callerEnv: env.callerEnv,
    conversation: conversationId ? { id: conversationId, from: w.conversationFrom === 'guess' ? 'guess' : 'launch' } : null,
    note: note || undefined,
    session: w.session,
    index: w.index ?? undefined,
    watched: true,
    worktree: worktree && worktree.branch ? worktree : null,
    idleAfterMs: w.saved.idleAfterMs ?? null,
  });
  res.window = created.window;
  res.argv = argv;
  res.cwd = cwd;
  res.note = note || null;
  res.installed = installed;
  res.conversationId = conversationId;
  res.worktree = worktree?.path ?? null;
  res.action = 'created';
  if (sleeping && created.watched) {
    await host.hibernated(created.watched as unknown as A, { since: sleeping.since, conversationId: w.conversationId!, screen: sleeping.screen, rssKb: sleeping.rssKb });
    res.hibernated = true;
    res.why = `hibernated in conversation ${w.conversationId} (nerdr wake, or a message, wakes it)`;
  }
  return created.pane;
}

/** What a resume's check needs of the supervisor. */
export type ResumeView<A extends RestoreAgent> = Pick<RestoreHost<A>, 'clock' | 'agent' | 'onChange' | 'screen'>;

/** Resolves once the pane's agent exits, or is replaced or gone, or has lived RESUME_GRACE_MS. */
function outcome<A extends RestoreAgent>(host: ResumeView<A>, pane: string): Promise<'alive' | 'exited' | 'gone'> {
  const first = host.agent(pane);
  if (!first) return Promise.resolve('gone');
  const generation = first.generation;
  return new Promise((resolve) => {
    let settled = false;
    const done = (v: 'alive' | 'exited' | 'gone'): void => {
      if (settled) return;
      settled = true;
      off();
      timer.cancel();
      resolve(v);
    };
    const check = (): void => {
      const a = host.agent(pane);
      if (a !== first || a.generation !== generation) return done('gone');
      if (a.dead) done('exited');
    };
    const off = host.onChange(check);
    const timer = host.clock.after(RESUME_GRACE_MS, () => done('alive'));
    check();
  });
}

function lastLine(text: string): string {
  // tmux's own line on a remain-on-exit pane ("Pane is dead (status 1, …)") says nothing of why
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !/^Pane is dead\b/.test(l));
  return (lines[lines.length - 1] ?? '').slice(0, 160);
}

/**
 * Why a resume just started in this pane failed at once, or null when it did not: the agent
 * exited within RESUME_GRACE_MS, or its screen says the conversation does not exist. Null also
 * when the pane went or was replaced meanwhile. Waits up to RESUME_GRACE_MS.
 */
export async function resumeFailed<A extends RestoreAgent>(host: ResumeView<A>, agent: string, pane: string): Promise<string | null> {
  const seen = await outcome(host, pane);
  if (seen === 'gone') return null;
  const a = host.agent(pane);
  if (!a) return null;
  const text = await host.screen(a);
  const notFound = notFoundOnScreen(agent, text);
  if (notFound) return `"${notFound}"`;
  if (seen === 'exited') return `it exited at once${lastLine(text) ? `: "${lastLine(text)}"` : ''}`;
  return null;
}

/** A resume that failed at once (exited, or "not found" on screen) becomes a new conversation in the same window. */
async function checkResume<A extends RestoreAgent>(host: RestoreHost<A>, env: RestoreEnv, w: PlannedWindow, res: WindowResult, pane: string): Promise<void> {
  if (!res.window || !res.installed || res.resume === 'fresh' || res.hibernated || !isAgentId(w.agent)) return;
  const why = await resumeFailed(host, w.agent, pane);
  if (!why) return;
  const a = host.agent(pane);
  if (!a) return;
  const what = res.resume === 'id' ? `resume of ${w.conversationId}` : `resume of the newest conversation in ${w.cwd}`;
  const note = `${what} failed (${why}): started a new conversation`;
  const plan = await env.plan(w.agent, w.freshArgs, res.cwd, true);
  await host.respawn(a, { argv: plan.argv, env: plan.env, callerEnv: env.callerEnv, conversationId: plan.conversationId, note });
  res.resumeFailed = why;
  res.note = note;
  res.argv = plan.argv;
  res.conversationId = plan.conversationId ?? null;
  res.resume = 'fresh';
}

function requeue<A extends RestoreAgent>(host: RestoreHost<A>, env: RestoreEnv, w: PlannedWindow, res: WindowResult, pane: string): void {
  const a = host.agent(pane);
  if (!a) return;
  for (const m of w.saved.queue) {
    try {
      const not = host.requeue(a, m);
      if (not === null) res.requeued++;
      else env.warn(`a saved message (${m.id}) for ${w.name} was not queued again: ${not}`);
    } catch (err) {
      env.warn(`could not re-queue a message for ${w.name}: ${(err as Error).message}`);
    }
  }
}

export interface RestoreOutcome {
  windows: WindowResult[];
  failures: number;
}

/**
 * Restores the saved sessions: plans against what runs now, makes missing sessions, creates each
 * window, then (all windows at once) checks each resume and queues its saved messages again.
 * `onWindow` gets each window's result once it is settled; the whole list is returned in order.
 * One window or session that fails does not stop the others.
 */
export async function restoreSessions<A extends RestoreAgent>(
  host: RestoreHost<A>,
  env: RestoreEnv,
  saved: SavedSession[],
  onWindow: (r: WindowResult) => void = () => undefined,
): Promise<RestoreOutcome> {
  const plans = planRestore(saved, await liveState(host));
  const results: WindowResult[] = [];
  const checks: Promise<void>[] = [];
  let failures = 0;
  for (const p of plans) {
    const todo = p.windows.filter((w) => w.action === 'create');
    for (const w of p.windows.filter((x) => x.action === 'skip')) {
      const res = { ...baseResult(w), action: 'skipped' as const };
      results.push(res);
      onWindow(res);
    }
    if (todo.length === 0) continue;
    let placeholder: string | null = null;
    try {
      placeholder = await ensureSession(host, env, p, todo);
    } catch (err) {
      // one session that cannot be made must not stop the others (nor their queued messages)
      for (const w of todo) {
        const res = { ...baseResult(w), action: 'failed' as const, why: (err as Error).message };
        results.push(res);
        onWindow(res);
      }
      failures += todo.length;
      continue;
    }
    let created = 0;
    for (const w of todo) {
      const res = baseResult(w);
      results.push(res);
      let pane: string;
      try {
        pane = await createOne(host, env, w, res);
        created++;
      } catch (err) {
        res.action = 'failed';
        res.why = (err as Error).message;
        failures++;
        onWindow(res);
        continue;
      }
      checks.push(
        (async () => {
          try {
            await checkResume(host, env, w, res, pane);
          } catch (err) {
            env.warn(`could not check the resume in ${w.name}: ${(err as Error).message}`);
          }
          requeue(host, env, w, res, pane);
          onWindow(res);
        })(),
      );
    }
    // the first window of a session made here was only there to hold the session
    if (placeholder && created > 0) await host.run(command('kill-window', '-t', placeholder)).catch(() => '');
  }
  await Promise.all(checks);
  return { windows: results, failures };
}
