// `nerdr events [target]`: the agent list, then each change, as it happens (the supervisor's
// nerdr.events stream; src/supervisor/events.ts). `--json`: NDJSON — first one `ls --json` row
// per agent, then one object per change (`type`: change, new, closed, resync).
//
// The stream outlives a supervisor: when its connection closes (a kill -9, a crash: tmux revives
// the supervisor within a second or two) it says so (`reconnecting`), connects again, and goes
// on with `reconnected` and a `resync` holding every row as it is then; changes in between are
// in that resync, not lines of their own. It starts nothing to get back: a supervisor stopped on
// purpose stays stopped, and after RECONNECT_MS the stream ends with a line on stderr and the
// exit status of `--no-start` (no supervisor, or no tmux server).

import type { Command } from 'commander';
import { exitFor, NerdrError } from '../errors.js';
import { request, subscribe, SocketRequestError, type Subscription } from '../supervisor/socket/index.js';
import type { AgentRow } from '../protocol/index.js';
import type { EventLine } from '../supervisor/events.js';
import { ensureSupervisor, socketError, supervisorAnswers, tmuxSocket } from './context.js';
import { serverFiles } from '../paths.js';
import { serverRunning } from '../tmux/server.js';
import { clockTime } from './print.js';
import { resetWhen } from '../looks.js';
import { visible } from '../text.js';

/** How long a stream whose supervisor went away waits for one to answer again. */
export const RECONNECT_MS = 10_000;
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 1000;

/** The lines of the stream's own, besides the supervisor's EventLine. */
export type LinkLine = { type: 'reconnecting'; at: number } | { type: 'reconnected'; at: number; awayMs: number };


function rowText(a: AgentRow): string {
  return `${a.name} (${a.window}) ${a.agent}: ${a.state}${limitText(a)}${a.queue ? `, ${a.queue} queued` : ''}`;
}

/** ` (resets 15:00 (in 2h05m))` while the agent is at its usage limit. */
function limitText(a: AgentRow): string {
  return a.state === 'limited' ? ` (resets ${resetWhen(a.limit?.resetAt, Date.now())})` : '';
}

/** One change as a person reads it: `12:00:01 api (@3): state working → done`. */
export function lineText(l: EventLine): string {
  switch (l.type) {
    case 'new':
      return `${clockTime(l.at)} new: ${rowText(l.agent)}`;
    case 'closed':
      return `${clockTime(l.at)} closed: ${l.name} (${l.window})`;
    case 'resync':
      return `${clockTime(l.at)} (this reader fell behind; the list again)\n${l.agents.map(rowText).join('\n')}`;
    case 'change': {
      const shown = l.changed.map((k) => {
        const now = (l.agent as unknown as Record<string, unknown>)[k];
        const was = l.was[k];
        const scalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
        return scalar(now) && scalar(was) ? `${k} ${String(was)} → ${String(now)}` : k;
      });
      return `${clockTime(l.at)} ${l.agent.name} (${l.agent.window}): ${shown.join(', ')}${l.changed.includes('state') || l.changed.includes('limit') ? limitText(l.agent) : ''}`;
    }
  }
}

/** What a reconnect found: the stream again, or why there is none. */
type Reconnect = { sub: Subscription } | { gone: 'supervisor' | 'server' | 'target' };

/**
 * Connects the stream again once a supervisor answers and has found its windows (a revived one
 * answers before its first scan: its list would be empty). Retries with backoff until `deadline`;
 * gives up at once when the tmux server is gone, or the one window followed is.
 */
async function reconnect(socketFile: string, sock: string, params: { target?: string }, deadline: number): Promise<Reconnect> {
  let wait = RETRY_FIRST_MS;
  for (;;) {
    const info = (await request(socketFile, 'nerdr.info', {}, { timeoutMs: 1000 }).catch(() => null)) as { ready?: boolean } | null;
    if (info?.ready) {
      try {
        return { sub: await subscribe(socketFile, 'nerdr.events', params, { timeoutMs: 5000 }) };
      } catch (err) {
        if (err instanceof SocketRequestError && err.code === 'unknown_target') return { gone: 'target' };
      }
    } else if (!info && !(await serverRunning(sock))) return { gone: 'server' };
    if (Date.now() + wait > deadline) return { gone: 'supervisor' };
    await new Promise((r) => setTimeout(r, wait));
    wait = Math.min(wait * 2, RETRY_MAX_MS);
  }
}

export function register(program: Command): void {
  program
    .command('events [target]')
    .description(`stream every agent, then each change (state, seen, queue, conversation, exit, new and closed windows) until interrupted; when the supervisor restarts it reconnects and lists every agent again (exit ${exitFor('no_supervisor')} when none answers within ${RECONNECT_MS / 1000} s)`)
    .option('--json', 'NDJSON: one `ls --json` row per agent, then one object per change')
    .option('--no-start', `start nothing: with no tmux server exit ${exitFor('no_server')}, with no supervisor exit ${exitFor('no_supervisor')} (what the fleet runs over ssh)`)
    .option('--as-resync', 'with --json: begin with one "resync" line holding every agent, instead of one row per agent (what the fleet reads)')
    .option('--until-stdin-ends', 'stop when standard input ends (over ssh: when the other side hangs up)')
    .action(async (target: string | undefined, opts: { json?: boolean; start: boolean; asResync?: boolean; untilStdinEnds?: boolean }, cmd: Command) => {
      let socketFile: string;
      const serverSock = await tmuxSocket(cmd, { mustRun: opts.start });
      if (opts.start) socketFile = await ensureSupervisor(serverSock);
      else {
        if (!(await serverRunning(serverSock))) throw new NerdrError(`no tmux server is running at ${serverSock}`, 'nothing was started (--no-start)', { code: 'no_server' });
        if (!(await supervisorAnswers(serverSock))) throw new NerdrError(`no nerdr supervisor runs for the tmux server at ${serverSock}`, 'nothing was started (--no-start); `nerdr supervisor start` starts one', { code: 'no_supervisor' });
        socketFile = serverFiles(serverSock).socket;
      }
      let sub = await subscribe(socketFile, 'nerdr.events', target ? { target } : {}, { timeoutMs: 10_000 }).catch((err: unknown) => {
        throw err instanceof SocketRequestError ? socketError(err) : err;
      });
      // (only once streaming: an open stdin would keep a failed start from exiting)
      if (opts.untilStdinEnds) {
        process.stdin.on('end', () => process.exit(0));
        process.stdin.on('error', () => process.exit(0));
        process.stdin.resume();
      }
      const first = sub.result as { agents: AgentRow[] };
      // a line for people shows the control characters of names, titles and notes (src/text.ts)
      const out = (text: string): void => void process.stdout.write((opts.json ? text : visible(text, { lines: true })) + '\n');
      if (opts.json && opts.asResync) out(JSON.stringify({ type: 'resync', at: Date.now(), agents: first.agents } satisfies EventLine));
      else for (const a of first.agents) out(opts.json ? JSON.stringify(a) : rowText(a));
      if (!opts.json && first.agents.length === 0 && !target) out('no agents yet; waiting for changes (Ctrl-C to stop)');
      // the one window followed, by its window id: a name could name another window after a gap
      let followed: AgentRow | undefined = target ? first.agents[0] : undefined;
      const params = followed ? { target: followed.window } : {};
      for (;;) {
        let closed = false;
        for await (const m of sub.events) {
          out(opts.json ? JSON.stringify(m) : lineText(m as EventLine));
          const l = m as EventLine;
          if (l.type === 'closed') closed = true;
          else if (l.type === 'change' || l.type === 'new') followed &&= l.agent;
          else if (l.type === 'resync') followed &&= l.agents[0] ?? followed;
        }
        // the one window followed closed: its stream's end
        if (target && closed) return;
        const lostAt = Date.now();
        out(opts.json ? JSON.stringify({ type: 'reconnecting', at: lostAt } satisfies LinkLine) : `${clockTime(lostAt)} the connection to the supervisor closed; reconnecting (up to ${RECONNECT_MS / 1000} s)`);
        const back = await reconnect(socketFile, serverSock, params, lostAt + RECONNECT_MS);
        const at = Date.now();
        if ('gone' in back && back.gone === 'server') {
          throw new NerdrError(`the tmux server at ${serverSock} is gone; the stream ended`, 'start tmux, then run `nerdr events` again', { code: 'no_server' });
        }
        if ('gone' in back && back.gone === 'supervisor') {
          throw new NerdrError(`the supervisor stopped and did not answer again within ${RECONNECT_MS / 1000} s; the stream ended`, '`nerdr supervisor start` starts it (or any nerdr command but `events --no-start`), then run `nerdr events` again', { code: 'no_supervisor' });
        }
        const away = `${clockTime(at)} reconnected after ${((at - lostAt) / 1000).toFixed(1)} s`;
        out(opts.json ? JSON.stringify({ type: 'reconnected', at, awayMs: at - lostAt } satisfies LinkLine) : 'gone' in back ? away : `${away}; every agent as it is now:`);
        if ('gone' in back) {
          // the window followed closed while the supervisor was away
          const w = followed!;
          const line: EventLine = { type: 'closed', at, window: w.window, id: w.id, name: w.name };
          out(opts.json ? JSON.stringify(line) : lineText(line));
          return;
        }
        sub = back.sub;
        const agents = (sub.result as { agents: AgentRow[] }).agents;
        if (opts.json) out(JSON.stringify({ type: 'resync', at, agents } satisfies EventLine));
        else out(agents.length ? agents.map(rowText).join('\n') : 'no agents');
        if (followed) followed = agents[0] ?? followed;
      }
    });
}
