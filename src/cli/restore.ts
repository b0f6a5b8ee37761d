// `nerdr restore`: bring back the agent windows of saved sessions after the tmux server (or a
// session) is gone — every window at its index, with its name and folder, resuming its
// conversation (docs/persistence.md). The decisions are src/store/restore-plan.ts; this file
// does them: sessions, windows, resume checks, fresh starts, queued messages.

import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { stateDir } from '../paths.js';
import { SessionStore, type SavedSession } from '../store/sessions.js';
import { planRestore, type LiveWindow, type PlannedWindow, type SessionPlan } from '../store/restore-plan.js';
import { checkTmuxVersion, resolveSocket, serverRunning, tmux } from '../tmux/server.js';
import { argvSafe, escapeFormat } from '../tmux/quote.js';
import { call, globalOpts } from './context.js';
import { onPath, planLaunch } from './new.js';
import { AGENTS } from '../integrations/agents.js';
import { ANY_NOT_FOUND, integrationFor } from '../integrations/index.js';
import { printJson, table } from './print.js';
import type { AgentRow } from '../supervisor/api.js';

interface RestoreOpts {
  target?: string;
  from?: string;
  dryRun?: boolean;
  json?: boolean;
  list?: boolean;
}

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

/**
 * The tmux server: -L / -S / $TMUX, else (outside tmux) the default socket — which is then
 * set as the root's -S, so every later call (context.ts) talks to that same server.
 */
function restoreSocket(cmd: Command): string {
  const g = globalOpts(cmd);
  try {
    return resolveSocket({ name: g.L, socket: g.S });
  } catch {
    const sock = resolveSocket({ name: 'default' });
    let root = cmd;
    while (root.parent) root = root.parent;
    root.setOptionValue('S', sock);
    return sock;
  }
}

/**
 * Starts a session (and the server, when none runs): plain argv, never -N. tmux expands formats
 * in -s and -c and splits its argv at an argument ending in `;`, so both are escaped for each.
 */
function newSession(sock: string, name: string, cwd: string): Promise<{ windowId: string; index: number }> {
  const env = { ...process.env };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return new Promise((resolve, reject) => {
    execFile(
      'tmux',
      ['-S', sock, 'new-session', '-d', '-s', argvSafe(escapeFormat(name)), '-c', argvSafe(escapeFormat(cwd)), '-P', '-F', '#{window_id} #{window_index}'],
      { env, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err) return reject(new NerdrError(`could not create tmux session "${name}": ${stderr.trim() || err.message}`));
        const [windowId = '', index = ''] = stdout.trim().split(' ');
        resolve({ windowId, index: Number(index) });
      },
    );
  });
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The session to restore into: there already (null), or made here with a placeholder window. */
async function ensureSession(sock: string, session: string, todo: PlannedWindow[]): Promise<{ windowId: string; index: number } | null> {
  const exists = (await serverRunning(sock)) && (await tmux(sock, ['has-session', '-t', argvSafe(`=${session}`)])).code === 0;
  if (exists) return null;
  const firstDir = todo.map((w) => w.cwd).find(isDir) ?? os.homedir();
  const placeholder = await newSession(sock, session, firstDir);
  const wanted = new Set(todo.map((w) => w.index).filter((i): i is number => i !== null));
  if (wanted.has(placeholder.index)) {
    // the session's first window sits where an agent belongs: move it out of the way
    const free = Math.max(placeholder.index, ...wanted) + 1;
    await tmux(sock, ['move-window', '-d', '-s', placeholder.windowId, '-t', argvSafe(`=${session}:${free}`)]);
  }
  return placeholder;
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
}

function baseResult(w: PlannedWindow): WindowResult {
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

async function liveState(cmd: Command, sock: string): Promise<{ live: LiveWindow[]; occupied: Record<string, number[]>; sessions: string[] }> {
  if (!(await serverRunning(sock))) return { live: [], occupied: {}, sessions: [] };
  const r = await tmux(sock, ['list-windows', '-a', '-F', '#{session_name}\t#{window_index}']);
  const occupied: Record<string, number[]> = {};
  for (const line of r.stdout.split('\n')) {
    if (!line) continue;
    const tab = line.lastIndexOf('\t');
    (occupied[line.slice(0, tab)] ??= []).push(Number(line.slice(tab + 1)));
  }
  const s = await tmux(sock, ['list-sessions', '-F', '#{session_name}']);
  const sessions = s.stdout.split('\n').filter(Boolean);
  const { agents } = await call<{ agents: AgentRow[] }>(cmd, 'nerdr.ls');
  const live: LiveWindow[] = agents.map((a) => ({
    session: a.session,
    index: a.windowIndex,
    agent: a.agent,
    cwd: a.cwd,
    conversationId: a.conversationId,
    exited: a.state === 'exited',
  }));
  return { live, occupied, sessions };
}

async function waitOutcome(cmd: Command, target: string): Promise<'alive' | 'exited' | 'gone'> {
  try {
    await call(cmd, 'nerdr.wait', { target, until: ['exited'], timeoutMs: RESUME_GRACE_MS }, { timeoutMs: RESUME_GRACE_MS + 5000 });
    return 'exited';
  } catch (err) {
    const code = err instanceof NerdrError ? err.code : undefined;
    if (code === 'timeout') return 'alive';
    if (code === 'agent_exited') return 'exited';
    return 'gone';
  }
}

async function screen(cmd: Command, target: string): Promise<string> {
  try {
    return (await call<{ text: string }>(cmd, 'nerdr.read', { target })).text;
  } catch {
    return '';
  }
}

function lastLine(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  return (lines[lines.length - 1] ?? '').slice(0, 160);
}

/** Creates one planned window; fills in the result. */
async function createOne(cmd: Command, w: PlannedWindow, res: WindowResult): Promise<void> {
  let cwd = w.cwd;
  let args = w.args;
  let note = w.note;
  // a window of a worktree comes back in it, tagged again; a worktree removed meanwhile is said
  let worktree = w.saved.worktree ? { path: w.saved.worktree, branch: w.saved.branch ?? '', base: w.saved.base ?? '' } : null;
  if (worktree && !isDir(worktree.path)) {
    cwd = os.homedir();
    args = w.freshArgs;
    note = `the worktree ${worktree.path} (branch ${worktree.branch}) is gone: started a new conversation in ${cwd} (to work on that branch again: nerdr new ${w.agent === 'unknown' ? '--cmd …' : w.agent} --worktree ${worktree.branch})`;
    res.resume = 'fresh';
    res.conversationId = null;
    worktree = null;
  } else if (!isDir(cwd)) {
    cwd = os.homedir();
    args = w.freshArgs;
    note = `the folder ${w.cwd} is gone: started a new conversation in ${cwd}`;
    res.resume = 'fresh';
    res.conversationId = null;
  }
  let plan: { argv: string[]; env: Record<string, string>; conversationId?: string; notes: string[] };
  if (AGENTS[w.agent]) plan = await planLaunch(w.agent, args, cwd, true);
  else if (w.saved.argv.length > 0) {
    // not a known agent (a `nerdr new --cmd` window): its saved command runs again as it was
    plan = { argv: w.saved.argv, env: {}, notes: [] };
  } else throw new NerdrError(`${w.agent} is not an agent nerdr can start, and no command was saved for ${w.name}`);
  for (const n of plan.notes) process.stderr.write(`nerdr: ${w.session}:${w.name}: ${n}\n`);
  let argv = plan.argv;
  const installed = onPath(argv[0]!);
  if (!installed) {
    argv = missingArgv(w.agent, argv);
    note = `${w.agent} is not installed: the window waits for it${note ? `; ${note}` : ''}`;
  }
  const conversationId = w.resume === 'id' && res.resume === 'id' ? w.conversationId : (plan.conversationId ?? null);
  const r = await call<{ window: string; pane: string; id: string }>(
    cmd,
    'nerdr.new',
    {
      agent: w.agent,
      name: w.name,
      cwd,
      argv,
      userArgs: w.freshArgs,
      env: plan.env,
      ...(conversationId ? { conversationId } : {}),
      ...(w.conversationFrom === 'guess' && conversationId ? { conversationFrom: 'guess' } : {}),
      ...(note ? { note } : {}),
      session: w.session,
      ...(w.index !== null ? { index: w.index } : {}),
      watched: true,
      ...(worktree && worktree.branch ? { worktree } : {}),
      // the environment of the shell running restore, as for nerdr new
      callerEnv: process.env,
    },
    { timeoutMs: 20_000 },
  );
  res.window = r.window;
  res.argv = argv;
  res.cwd = cwd;
  res.note = note || null;
  res.installed = installed;
  res.conversationId = conversationId;
  res.worktree = worktree?.path ?? null;
  res.action = 'created';
}

/** A resume that failed at once (exited, or "not found" on screen) becomes a new conversation in the same window. */
async function checkResume(cmd: Command, w: PlannedWindow, res: WindowResult): Promise<void> {
  if (!res.window || !res.installed || res.resume === 'fresh' || !AGENTS[w.agent]) return;
  const outcome = await waitOutcome(cmd, res.window);
  if (outcome === 'gone') return;
  const text = await screen(cmd, res.window);
  const notFound = notFoundOnScreen(w.agent, text);
  let why: string | null = null;
  if (notFound) why = `"${notFound}"`;
  else if (outcome === 'exited') why = `it exited at once${lastLine(text) ? `: "${lastLine(text)}"` : ''}`;
  if (!why) return;
  const what = res.resume === 'id' ? `resume of ${w.conversationId}` : `resume of the newest conversation in ${w.cwd}`;
  const note = `${what} failed (${why}): started a new conversation`;
  const plan = await planLaunch(w.agent, w.freshArgs, res.cwd, true);
  await call(cmd, 'nerdr.respawn', { target: res.window, argv: plan.argv, env: plan.env, callerEnv: process.env, ...(plan.conversationId ? { conversationId: plan.conversationId } : {}), note }, { timeoutMs: 20_000 });
  res.resumeFailed = why;
  res.note = note;
  res.argv = plan.argv;
  res.conversationId = plan.conversationId ?? null;
  res.resume = 'fresh';
}

async function requeue(cmd: Command, w: PlannedWindow, res: WindowResult): Promise<void> {
  if (!res.window) return;
  for (const m of w.saved.queue) {
    try {
      await call(cmd, 'nerdr.send', { target: res.window, message: m.text });
      res.requeued++;
    } catch (err) {
      process.stderr.write(`nerdr: could not re-queue a message for ${w.name}: ${(err as Error).message}\n`);
    }
  }
}

function describe(r: WindowResult): string {
  const where = `${r.session}:${r.index ?? '?'} ${r.name}`;
  switch (r.action) {
    case 'skipped':
      return `${where}: skipped, ${r.why}`;
    case 'failed':
      return `${where}: FAILED, ${r.why}`;
    case 'planned':
      return `${where}: ${r.why}`;
    default: {
      const parts = [r.resumeFailed ? `resume failed (${r.resumeFailed}): started a new conversation` : r.why];
      if (!r.installed) parts.push(`${r.agent} is not installed: the window says so and waits`);
      // why it is not back where it was
      const gone = r.note?.split('; ').filter((n) => / is gone: /.test(n)).join('; ');
      if (gone && !r.resumeFailed) parts.push(gone);
      if (r.requeued) parts.push(`${r.requeued} queued message${r.requeued === 1 ? '' : 's'} re-queued`);
      return `${where} (${r.window}): ${parts.join('; ')}`;
    }
  }
}

async function dryRun(plans: SessionPlan[], json: boolean | undefined): Promise<void> {
  const results: WindowResult[] = [];
  for (const p of plans) {
    for (const w of p.windows) {
      const res = baseResult(w);
      if (w.action === 'skip') res.action = 'skipped';
      else {
        // hooks off: the argv without nerdr's wiring, and nothing written
        const plan = AGENTS[w.agent] ? await planLaunch(w.agent, w.args, isDir(w.cwd) ? w.cwd : os.homedir(), false) : { argv: w.saved.argv };
        res.argv = plan.argv;
        res.installed = plan.argv.length > 0 && onPath(plan.argv[0]!);
      }
      results.push(res);
    }
  }
  if (json) return printJson({ dryRun: true, sessions: plans.map((p) => ({ session: p.session, create: p.create })), windows: results });
  for (const p of plans) {
    process.stdout.write(`session ${p.session}${p.create ? ' (will be created)' : ''}\n`);
    const rows = results
      .filter((r) => r.session === p.session)
      .map((r) => [String(r.index ?? 'next'), r.name, r.cwd, r.action === 'skipped' ? '(skip)' : r.argv.join(' ') + (r.installed ? '' : '  [not installed]'), r.why]);
    process.stdout.write(table(['INDEX', 'NAME', 'CWD', 'ARGV (+ nerdr hooks)', 'WHY'], rows));
  }
}

function loadSaved(store: SessionStore, sock: string, opts: RestoreOpts): SavedSession[] {
  if (opts.from) {
    const s = store.loadFile(path.resolve(opts.from));
    return [opts.target ? { ...s, session: opts.target } : s];
  }
  if (opts.target) {
    const s = store.load(sock, opts.target);
    if (!s) {
      const names = store.list(sock).map((l) => l.session);
      throw new NerdrError(`no saved session "${opts.target}" for the tmux server ${sock}`, names.length ? `saved sessions: ${names.join(', ')}` : 'nothing is saved for this server');
    }
    return [s];
  }
  const out: SavedSession[] = [];
  for (const l of store.list(sock)) {
    const s = store.load(sock, l.session);
    if (s) out.push(s);
  }
  return out;
}

export function register(program: Command): void {
  program
    .command('restore')
    .description('bring back the agent windows of saved sessions (after a reboot or a killed tmux server), resuming their conversations')
    .option('-t, --target <session>', 'only this saved session')
    .option('--from <file>', 'restore from this saved file or snapshot (with -t: into that session)')
    .option('--dry-run', 'print what would be done, change nothing')
    .option('--list', 'list the saved sessions of this tmux server and their snapshots')
    .option('--json', 'print JSON')
    .action(async (opts: RestoreOpts, cmd: Command) => {
      await checkTmuxVersion();
      const sock = restoreSocket(cmd);
      const store = new SessionStore(path.join(stateDir(), 'sessions'));
      const report = (): void => {
        for (const p of store.problems()) process.stderr.write(`nerdr: ${p}\n`);
      };

      if (opts.list) {
        const rows = store.list(sock).map((l) => ({ ...l, snapshots: store.snapshots(sock, l.session) }));
        report();
        if (opts.json) return printJson({ server: sock, sessions: rows });
        if (rows.length === 0) return void process.stdout.write(`nothing saved for the tmux server ${sock}\n`);
        for (const r of rows) {
          process.stdout.write(`${r.session}: ${r.windows} window${r.windows === 1 ? '' : 's'}, saved ${r.savedAt}\n  ${r.file}\n`);
          for (const s of r.snapshots) process.stdout.write(`  snapshot ${s.savedAt}  ${s.file}\n`);
        }
        return;
      }

      const saved = loadSaved(store, sock, opts);
      report();
      if (saved.length === 0) {
        const unread = store.problems().length;
        if (unread > 0) {
          throw new NerdrError(
            `nothing restored: ${unread} saved session file${unread === 1 ? '' : 's'} of this state folder could not be read (above)`,
            'fix what is named above and run `nerdr restore` again; `nerdr restore --list` shows what is saved',
          );
        }
        if (opts.json) return printJson({ server: sock, windows: [] });
        process.stdout.write(`nothing saved for the tmux server ${sock}\n`);
        return;
      }
      for (const s of saved) {
        if (s.windows.length === 0 && !opts.json) {
          const snaps = store.snapshots(sock, s.session);
          process.stderr.write(`nerdr: the saved session ${s.session} has no agent windows${snaps[0] ? `; an earlier version: nerdr restore -t ${s.session} --from ${snaps[0].file}` : ''}\n`);
        }
      }

      const plans = planRestore(saved, await liveState(cmd, sock));
      if (opts.dryRun) return dryRun(plans, opts.json);

      const results: { w: PlannedWindow; res: WindowResult }[] = [];
      let failures = 0;
      for (const p of plans) {
        const todo = p.windows.filter((w) => w.action === 'create');
        for (const w of p.windows.filter((x) => x.action === 'skip')) results.push({ w, res: { ...baseResult(w), action: 'skipped' } });
        if (todo.length === 0) continue;
        let placeholder: { windowId: string; index: number } | null = null;
        try {
          placeholder = await ensureSession(sock, p.session, todo);
        } catch (err) {
          // one session that cannot be made must not stop the others (nor their queued messages)
          for (const w of todo) results.push({ w, res: { ...baseResult(w), action: 'failed', why: (err as Error).message } });
          failures += todo.length;
          continue;
        }
        let created = 0;
        for (const w of todo) {
          const res = baseResult(w);
          results.push({ w, res });
          try {
            await createOne(cmd, w, res);
            created++;
          } catch (err) {
            res.action = 'failed';
            res.why = (err as Error).message;
            failures++;
          }
        }
        // the first window of a session made here was only there to hold the session
        if (placeholder && created > 0) await tmux(sock, ['kill-window', '-t', placeholder.windowId]);
      }

      await Promise.all(
        results.filter((r) => r.res.action === 'created').map(async ({ w, res }) => {
          try {
            await checkResume(cmd, w, res);
          } catch (err) {
            process.stderr.write(`nerdr: could not check the resume in ${w.name}: ${(err as Error).message}\n`);
          }
          await requeue(cmd, w, res);
        }),
      );

      const out = results.map((r) => r.res);
      if (opts.json) printJson({ server: sock, windows: out });
      else for (const r of out) process.stdout.write(describe(r) + '\n');
      if (failures > 0) process.exitCode = 1;
    });
}
