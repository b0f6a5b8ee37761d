// `nerdr restore`: bring back the agent windows of saved sessions after the tmux server (or a
// session) is gone — every window at its index, with its name and folder, resuming its
// conversation (docs/persistence.md). This file reads the saved sessions and prints; the
// supervisor restores them (nerdr.restore, src/supervisor/restore.ts), so a Ctrl-C here stops
// only the printing.

import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { exitFor, NerdrError } from '../errors.js';
import { stateDir } from '../paths.js';
import { SessionStore, type SavedSession } from '../store/sessions.js';
import { planRestore, type SessionPlan } from '../store/restore-plan.js';
import { checkTmuxVersion, resolveSocket, serverRunning } from '../tmux/server.js';
import { callerSecret, ensureSupervisor, globalOpts, socketError } from './context.js';
import { onPath, planLaunch } from '../integrations/plan.js';
import { dryRunResults, isDir, isFile, RESUME_GRACE_MS, type WindowResult } from '../supervisor/restore.js';
import { ensureHiddenSession } from '../supervisor/channel.js';
import { request, subscribe, SocketRequestError } from '../supervisor/socket/index.js';
import { printJson, table } from './print.js';

interface RestoreOpts {
  target?: string;
  from?: string;
  dryRun?: boolean;
  json?: boolean;
  list?: boolean;
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

/** What a dry run prints: planned by the supervisor when the server runs, else here (nothing runs). */
async function dryRun(sock: string, saved: SavedSession[], json: boolean | undefined): Promise<void> {
  let sessions: { session: string; create: boolean }[];
  let results: WindowResult[];
  if (await serverRunning(sock)) {
    const socketFile = await ensureSupervisor(sock);
    const r = (await request(socketFile, 'nerdr.restore', { sessions: saved, callerEnv: process.env, dryRun: true, caller: callerSecret() }, { timeoutMs: 20_000 }).catch((err: unknown) => {
      throw err instanceof SocketRequestError ? socketError(err) : err;
    })) as { sessions: { session: string; create: boolean }[]; windows: WindowResult[] };
    sessions = r.sessions;
    results = r.windows;
  } else {
    const plans: SessionPlan[] = planRestore(saved, { live: [], occupied: {}, sessions: [] });
    sessions = plans.map((p) => ({ session: p.session, create: p.create }));
    results = await dryRunResults(plans, {
      callerEnv: {},
      home: os.homedir(),
      plan: (agent, args, cwd, hooks) => planLaunch(agent, args, cwd, hooks),
      onPath: (program) => onPath(program),
      isDir,
      isFile,
      warn: (m) => process.stderr.write(`nerdr: ${m}\n`),
    });
  }
  if (json) return printJson({ dryRun: true, sessions, windows: results });
  for (const p of sessions) {
    process.stdout.write(`session ${p.session}${p.create ? ' (will be created)' : ''}\n`);
    const rows = results
      .filter((r) => r.session === p.session)
      .map((r) => [String(r.index ?? 'next'), r.name, r.cwd, r.action === 'skipped' ? '(skip)' : r.argv.join(' ') + (r.installed ? '' : '  [not installed]'), r.why]);
    process.stdout.write(table(['INDEX', 'NAME', 'CWD', 'ARGV (+ nerdr hooks)', 'WHY'], rows));
  }
}

/**
 * Restores through the supervisor: the server is started (with _nerdr) when none runs, then
 * each window is printed once the supervisor has settled it.
 */
async function restore(sock: string, saved: SavedSession[], json: boolean | undefined): Promise<void> {
  if (!(await serverRunning(sock))) await ensureHiddenSession(sock, { startServer: true });
  const socketFile = await ensureSupervisor(sock);
  const total = saved.reduce((n, s) => n + s.windows.length, 0);
  if (!json) process.stderr.write(`nerdr: restoring ${total} window${total === 1 ? '' : 's'} of ${saved.map((s) => s.session).join(', ')}; each resume is checked for ${RESUME_GRACE_MS / 1000} s\n`);
  const sub = await subscribe(socketFile, 'nerdr.restore', { sessions: saved, callerEnv: process.env, caller: callerSecret() }, { timeoutMs: 20_000 }).catch((err: unknown) => {
    throw err instanceof SocketRequestError ? socketError(err) : err;
  });
  let out: { windows: WindowResult[]; failures: number } | null = null;
  for await (const m of sub.events) {
    const e = m as { event?: string; data?: unknown };
    if (e.event === 'window' && !json) process.stdout.write(describe(e.data as WindowResult) + '\n');
    else if (e.event === 'warning') process.stderr.write(`nerdr: ${(e.data as { message: string }).message}\n`);
    else if (e.event === 'error') throw new NerdrError(`the restore failed in the supervisor: ${(e.data as { message: string }).message}`, 'see the supervisor log: nerdr supervisor status');
    else if (e.event === 'done') {
      out = e.data as { windows: WindowResult[]; failures: number };
      break;
    }
  }
  sub.close();
  if (!out) throw new NerdrError('the supervisor went away during the restore', 'run `nerdr ls` to see what is back, and `nerdr restore` again for the rest (it skips what is there)');
  if (json) printJson({ server: sock, windows: out.windows });
  if (out.failures > 0) process.exitCode = exitFor('restore_failed');
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

      if (opts.dryRun) return dryRun(sock, saved, opts.json);
      await restore(sock, saved, opts.json);
    });
}
