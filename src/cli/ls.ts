// `nerdr ls` and `nerdr status`: what every agent is doing.

import type { Command } from 'commander';
import { call } from './context.js';
import { printJson, table } from './print.js';
import { age, resetWhen } from '../looks.js';
import type { AgentRow } from '../protocol/index.js';
import { visible } from '../text.js';
import { statusLine, type StatusCounts } from './read-fast.js';

/** The agent's name as herdr shows it: a reported display name, else a custom report's label, else the window's agent. */
export function shownAgent(a: Pick<AgentRow, 'agent'> & Partial<Pick<AgentRow, 'displayAgent' | 'reportedAgent'>>): string {
  return a.displayAgent || a.reportedAgent || a.agent;
}

/** An id's first 13 characters; a session file (pi, omp) by its name. */
export function shortConversation(ref: string): string {
  return (ref.startsWith('/') ? (ref.split('/').pop() ?? ref) : ref).slice(0, 13);
}

export function register(program: Command): void {
  program
    .command('ls')
    .description('list every agent: name, agent, state, seen, session, window, pane, queue, conversation, branch (in a worktree), cwd')
    .option('--json', 'print JSON')
    .option('--fleet', "also the fleet's hosts' agents, with their host (docs/fleet.md)")
    .action(async (opts: { json?: boolean; fleet?: boolean }, cmd: Command) => {
      const { agents } = await call<{ agents: AgentRow[] }>(cmd, 'nerdr.ls', {}, { whenNone: () => ({ agents: [] }) });
      if (opts.fleet) return printFleet(cmd, agents, !!opts.json);
      if (opts.json) return printJson(agents);
      if (agents.length === 0) {
        process.stdout.write('no agents; start one with `nerdr new claude` (or `nerdr demo`)\n');
        return;
      }
      const now = Date.now();
      // what herdr-style reports ask to show: a title (its own column when any agent has one),
      // a name for the agent, a text with the state
      const titles = agents.some((a) => a.title);
      // windows in worktrees (nerdr new --worktree): their branch, in a column of its own
      const branches = agents.some((a) => a.branch);
      const rows = agents.map((a) => [
        a.name,
        ...(titles ? [a.title ?? '-'] : []),
        shownAgent(a),
        a.state + (a.exitStatus ? `(${a.exitStatus})` : '') + (a.state === 'limited' ? ` (resets ${resetWhen(a.limit?.resetAt, now)})` : '') + (a.background ? `+bg(${a.subagents + a.backgroundTasks})` : '') + (a.stateLabel ? ` (${a.stateLabel})` : ''),
        age(now - a.stateSince),
        a.seen === null ? '-' : a.seen ? 'yes' : 'no',
        a.session,
        a.windowIndex === null ? a.window : `${a.windowIndex} ${a.window}`,
        a.pane,
        a.queue ? `${a.queue}${a.queueStalled ? '⏸' : ''}` : '-',
        a.conversationId ? `${shortConversation(a.conversationId)} (${a.conversationFrom})` : '-',
        ...(branches ? [a.branch ?? '-'] : []),
        a.cwd,
      ]);
      process.stdout.write(table(['NAME', ...(titles ? ['TITLE'] : []), 'AGENT', 'STATE', 'FOR', 'SEEN', 'SESSION', 'WINDOW', 'PANE', 'QUEUE', 'CONVERSATION', ...(branches ? ['BRANCH'] : []), 'CWD'], rows));
    });

  program
    .command('status')
    .description('one short line for a status bar: agents counted by state')
    .option('--json', 'print JSON')
    .option('--fleet', "the fleet's hosts instead, as @nerdr_fleet shows them in the status bar")
    .action(async (opts: { json?: boolean; fleet?: boolean }, cmd: Command) => {
      if (opts.fleet) {
        const { fleetAnswer, fleetStatusLine } = await import('./fleet.js');
        if (opts.json) return printJson((await fleetAnswer(cmd)).hosts);
        process.stdout.write((await fleetStatusLine(cmd)) + '\n');
        return;
      }
      const s = await call<StatusCounts>(cmd, 'nerdr.status', {}, { whenNone: () => ({ counts: {}, total: 0 }) });
      if (opts.json) return printJson(s);
      process.stdout.write(statusLine(s) + '\n');
    });
}

/** `ls --fleet`: this machine's agents (host "-"), then each host's, stale ones marked. */
async function printFleet(cmd: Command, local: AgentRow[], json: boolean): Promise<void> {
  const { fleetAnswer } = await import('./fleet.js');
  const { ageText } = await import('../fleet/fleet.js');
  const a = await fleetAnswer(cmd);
  const remote = a.hosts.flatMap((h) => h.agents.map((r) => ({ ...r, host: h.name, stale: h.state !== 'connected' })));
  if (json) return printJson([...local.map((r) => ({ ...r, host: null, stale: false })), ...remote]);
  const now = Date.now();
  const rows = [
    ...local.map((r) => ['-', r.name, shownAgent(r), r.state, age(now - r.stateSince), r.session, r.windowIndex === null ? r.window : `${r.windowIndex} ${r.window}`, r.cwd]),
    ...a.hosts.flatMap((h) =>
      h.agents.map((r) => [
        h.name + (h.state === 'connected' ? '' : ` (stale ${ageText(a.now - (h.heardAt ?? h.since))})`),
        r.name,
        r.agent,
        r.state,
        age(a.now - r.stateSince),
        r.session,
        r.windowIndex === null ? r.window : `${r.windowIndex} ${r.window}`,
        r.cwd,
      ]),
    ),
  ];
  if (rows.length === 0) {
    process.stdout.write('no agents here or on the fleet\'s hosts\n');
    return;
  }
  process.stdout.write(table(['HOST', 'NAME', 'AGENT', 'STATE', 'FOR', 'SESSION', 'WINDOW', 'CWD'], rows));
  const down = a.hosts.filter((h) => h.state === 'down' && h.error);
  for (const h of down) process.stderr.write(`nerdr: ${visible(h.error!.message)} (fix: ${visible(h.error!.fix)})\n`);
}
