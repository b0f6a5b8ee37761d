// `nerdr events [target]`: the agent list, then each change, as it happens (the supervisor's
// nerdr.events stream; src/supervisor/events.ts). `--json`: NDJSON — first one `ls --json` row
// per agent, then one object per change (`type`: change, new, closed, resync).

import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { subscribe, SocketRequestError } from '../supervisor/socket/index.js';
import type { AgentRow } from '../supervisor/api.js';
import type { EventLine } from '../supervisor/events.js';
import { ensureSupervisor, socketError, supervisorAnswers, tmuxSocket } from './context.js';
import { serverFiles } from '../paths.js';
import { NO_SERVER_EXIT, NO_SUPERVISOR_EXIT } from '../fleet/ssh.js';
import { clockTime } from './print.js';


function rowText(a: AgentRow): string {
  return `${a.name} (${a.window}) ${a.agent}: ${a.state}${a.queue ? `, ${a.queue} queued` : ''}`;
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
      return `${clockTime(l.at)} ${l.agent.name} (${l.agent.window}): ${shown.join(', ')}`;
    }
  }
}

export function register(program: Command): void {
  program
    .command('events [target]')
    .description('stream every agent, then each change (state, seen, queue, conversation, exit, new and closed windows) until interrupted')
    .option('--json', 'NDJSON: one `ls --json` row per agent, then one object per change')
    .option('--no-start', `start nothing: with no tmux server exit ${NO_SERVER_EXIT}, with no supervisor exit ${NO_SUPERVISOR_EXIT} (what the fleet runs over ssh)`)
    .option('--as-resync', 'with --json: begin with one "resync" line holding every agent, instead of one row per agent (what the fleet reads)')
    .option('--until-stdin-ends', 'stop when standard input ends (over ssh: when the other side hangs up)')
    .action(async (target: string | undefined, opts: { json?: boolean; start: boolean; asResync?: boolean; untilStdinEnds?: boolean }, cmd: Command) => {
      let socketFile: string;
      if (opts.start) socketFile = await ensureSupervisor(await tmuxSocket(cmd));
      else {
        const sock = await tmuxSocket(cmd, { mustRun: false });
        const { serverRunning } = await import('../tmux/server.js');
        if (!(await serverRunning(sock))) throw new NerdrError(`no tmux server is running at ${sock}`, 'nothing was started (--no-start)', { code: 'no_server', exitCode: NO_SERVER_EXIT });
        if (!(await supervisorAnswers(sock))) throw new NerdrError(`no nerdr supervisor runs for the tmux server at ${sock}`, 'nothing was started (--no-start); `nerdr supervisor start` starts one', { code: 'no_supervisor', exitCode: NO_SUPERVISOR_EXIT });
        socketFile = serverFiles(sock).socket;
      }
      const sub = await subscribe(socketFile, 'nerdr.events', target ? { target } : {}, { timeoutMs: 10_000 }).catch((err: unknown) => {
        throw err instanceof SocketRequestError ? socketError(err) : err;
      });
      // (only once streaming: an open stdin would keep a failed start from exiting)
      if (opts.untilStdinEnds) {
        process.stdin.on('end', () => process.exit(0));
        process.stdin.on('error', () => process.exit(0));
        process.stdin.resume();
      }
      const first = sub.result as { agents: AgentRow[] };
      const out = (text: string): void => void process.stdout.write(text + '\n');
      if (opts.json && opts.asResync) out(JSON.stringify({ type: 'resync', at: Date.now(), agents: first.agents } satisfies EventLine));
      else for (const a of first.agents) out(opts.json ? JSON.stringify(a) : rowText(a));
      if (!opts.json && first.agents.length === 0 && !target) out('no agents yet; waiting for changes (Ctrl-C to stop)');
      for await (const m of sub.events) out(opts.json ? JSON.stringify(m) : lineText(m as EventLine));
      // the stream ends when the supervisor stops, or when the one window followed closes
      if (!target) throw new NerdrError('the supervisor stopped; the stream ended', 'run `nerdr events` again (it starts the supervisor)');
    });
}
