// `nerdr next`, `nerdr focus`, `nerdr stop`: going to the agent that needs you, or ending one.

import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { tmux } from '../tmux/server.js';
import { call, tmuxSocket } from './context.js';
import type { AgentRow } from '../supervisor/api.js';
import { printJson } from './print.js';

/** The client to switch: the one showing the calling pane, else the most recently active one. */
async function callingClient(sock: string): Promise<{ name: string; session: string }> {
  const pane = process.env.TMUX_PANE;
  const args = pane ? ['display', '-p', '-t', pane, '#{client_name}\t#{session_name}'] : ['display', '-p', '#{client_name}\t#{session_name}'];
  const r = await tmux(sock, args);
  const [name = '', session = ''] = r.stdout.trim().split('\t');
  if (r.code !== 0 || !name) throw new NerdrError('no tmux client to switch', 'run this inside tmux (e.g. from a key binding: bind-key N run-shell -b "nerdr next")');
  return { name, session };
}

/** The most urgent agent: the oldest blocked, else the oldest unseen finished one. */
export function pickNext(agents: AgentRow[], session: string | null): AgentRow | null {
  const scope = session === null ? agents : agents.filter((a) => a.sessions.includes(session));
  const oldest = (state: string) =>
    scope.filter((a) => a.state === state).sort((x, y) => x.stateSince - y.stateSince)[0] ?? null;
  return oldest('blocked') ?? oldest('done');
}

async function switchTo(sock: string, client: { name: string; session: string }, a: AgentRow): Promise<void> {
  const session = a.sessions.includes(client.session) ? client.session : a.session;
  const r = await tmux(sock, ['switch-client', '-c', client.name, '-t', `=${session}:${a.window}`]);
  if (r.code !== 0) throw new NerdrError(`cannot switch to ${a.name}: ${r.stderr.trim()}`);
}

export function register(program: Command): void {
  program
    .command('next')
    .description('switch to the agent that needs you most: the oldest blocked, else the oldest unseen finished one')
    .option('--all', 'look in every session, not only the current one')
    .option('--json', 'print JSON')
    .action(async (opts: { all?: boolean; json?: boolean }, cmd: Command) => {
      const sock = await tmuxSocket(cmd);
      const client = await callingClient(sock);
      const { agents } = await call<{ agents: AgentRow[] }>(cmd, 'nerdr.ls');
      const a = pickNext(agents, opts.all ? null : client.session);
      if (!a) {
        if (opts.json) return printJson({ switched: null });
        process.stdout.write(`nothing needs you${opts.all ? '' : ' in this session (--all looks everywhere)'}: no blocked or unseen finished agents\n`);
        return;
      }
      await switchTo(sock, client, a);
      if (opts.json) printJson({ switched: a });
      else process.stdout.write(`${a.name} (${a.state})\n`);
    });

  program
    .command('focus <target>')
    .description('switch your tmux client to an agent')
    .action(async (target: string, _o: unknown, cmd: Command) => {
      const sock = await tmuxSocket(cmd);
      const client = await callingClient(sock);
      const { agents } = await call<{ agents: AgentRow[] }>(cmd, 'nerdr.ls');
      const a = agents.find((x) => x.window === target || x.pane === target || x.name === target);
      if (!a) throw new NerdrError(`no agent "${target}"`, `agents: ${agents.map((x) => x.name).join(', ') || 'none'}`);
      await switchTo(sock, client, a);
    });

  program
    .command('stop <target>')
    .description('end an agent: its window is closed')
    .action(async (target: string, _o: unknown, cmd: Command) => {
      const r = await call<{ target: string }>(cmd, 'nerdr.stop-agent', { target });
      process.stdout.write(`stopped ${r.target}\n`);
    });
}
