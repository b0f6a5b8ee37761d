// `nerdr next`, `nerdr focus`, `nerdr stop`: going to the agent that needs you, or ending one.

import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { tmux } from '../tmux/server.js';
import { argvSafe, escapeFormat } from '../tmux/quote.js';
import { call, callerSecret, tmuxSocket } from './context.js';
import type { AgentRow } from '../protocol/index.js';
import { urgentOrder } from '../supervisor/urgent.js';
import { printJson } from './print.js';
import { remote } from './remote.js';

/** The client to switch: the one showing the calling pane, else the most recently active one. */
async function callingClient(sock: string): Promise<{ name: string; session: string; window: string }> {
  const pane = process.env.TMUX_PANE;
  const format = '#{client_name}\t#{session_name}\t#{window_id}';
  const args = pane ? ['display', '-p', '-t', pane, format] : ['display', '-p', format];
  const r = await tmux(sock, args);
  const [name = '', session = '', window = ''] = r.stdout.trim().split('\t');
  if (r.code !== 0 || !name) throw new NerdrError('no tmux client to switch', 'run this inside tmux (e.g. from a key binding: bind-key N run-shell -b "nerdr next --message")');
  return { name, session, window };
}


/**
 * The agent to go to: the most urgent, or, when the client already shows one of them, the one
 * after it (then round again), so pressing the key again goes on to the next that needs you.
 */
export function pickNext(agents: AgentRow[], session: string | null, currentWindow?: string): AgentRow | null {
  const order = urgentOrder(agents, session);
  if (order.length === 0) return null;
  const at = order.findIndex((a) => a.window === currentWindow);
  return order[(at + 1) % order.length]!;
}

/** Says `text` in the client's status line (for key bindings: run-shell would cover the pane). */
async function tell(sock: string, client: string | null, text: string): Promise<void> {
  await tmux(sock, ['display-message', ...(client ? ['-c', client] : []), argvSafe(escapeFormat(text))]);
}

/**
 * The agents this command may switch to: all of them at a person's shell; in an agent window,
 * those it started (the supervisor says which; src/supervisor/control.ts).
 */
async function switchable(cmd: Command, agents: AgentRow[]): Promise<{ agents: AgentRow[]; fix: string | null }> {
  const caller = callerSecret();
  if (!caller || agents.length === 0) return { agents, fix: null };
  const may = await call<{ all: boolean; windows: string[]; fix?: string }>(cmd, 'nerdr.may', { caller, action: 'focus' });
  if (may.all) return { agents, fix: null };
  return { agents: agents.filter((a) => may.windows.includes(a.window)), fix: may.fix ?? null };
}

async function switchTo(sock: string, client: { name: string; session: string }, a: AgentRow): Promise<void> {
  const session = a.sessions.includes(client.session) ? client.session : a.session;
  const r = await tmux(sock, ['switch-client', '-c', client.name, '-t', `=${session}:${a.window}`]);
  if (r.code !== 0) throw new NerdrError(`cannot switch to ${a.name}: ${r.stderr.trim()}`, undefined, { code: 'tmux_command' });
}

export function register(program: Command): void {
  program
    .command('next')
    .description('switch to the agent that needs you most: the oldest blocked, else the oldest unseen finished one')
    .option('--all', 'look in every session, not only the current one')
    .option('--json', 'print JSON')
    .option('--message', 'say the result (or the error) in the status line and print nothing: for key bindings')
    .option('--fleet', "also the fleet's hosts' agents: one of those opens (or reuses) a window named after its host, attached over ssh")
    .action(async (opts: { all?: boolean; json?: boolean; message?: boolean; fleet?: boolean }, cmd: Command) => {
      const sock = await tmuxSocket(cmd);
      let client: { name: string; session: string; window: string } | null = null;
      try {
        client = await callingClient(sock);
        const listed = await call<{ agents: AgentRow[] }>(cmd, 'nerdr.ls', {}, { whenNone: () => ({ agents: [] }) });
        const { agents, fix } = await switchable(cmd, listed.agents);
        if (opts.fleet && !callerSecret()) {
          const { nextInFleet } = await import('./fleet.js');
          const went = await nextInFleet(cmd, sock, client, agents, opts.all ? null : client.session);
          if (went) {
            if (opts.message) return await tell(sock, client.name, `nerdr: ${went}`);
            if (opts.json) return printJson({ switched: went });
            process.stdout.write(`${went}\n`);
            return;
          }
        }
        const a = pickNext(agents, opts.all ? null : client.session, client.window);
        if (!a) {
          const mine = fix ? ' among the windows this agent started' : '';
          const none = `nothing needs you${mine}${opts.all ? '' : ' in this session (--all looks everywhere)'}: no blocked or unseen finished agents`;
          if (opts.message) return await tell(sock, client.name, `nerdr: ${none}`);
          if (opts.json) return printJson({ switched: null });
          process.stdout.write(`${none}\n`);
          return;
        }
        await switchTo(sock, client, a);
        if (opts.message) return await tell(sock, client.name, `nerdr: ${a.name} (${a.state})`);
        if (opts.json) printJson({ switched: a });
        else process.stdout.write(`${a.name} (${a.state})\n`);
      } catch (err) {
        if (!opts.message) throw err;
        // a key binding's run-shell shows any output over the pane: the error goes to the status line
        const e = err as NerdrError;
        await tell(sock, client?.name ?? null, `nerdr: ${e.message}${e.fix ? ` (${e.fix})` : ''}`).catch(() => undefined);
      }
    });

  program
    .command('attach <target>')
    .description('attach this terminal to an agent\'s window (outside tmux; inside it, use focus). HOST:NAME attaches over ssh')
    .action(async (target: string, _o: unknown, cmd: Command) => {
      await remote('attach', target);
      if (process.env.TMUX) throw new NerdrError('already inside tmux: attaching would nest it', `switch to it instead: nerdr focus ${target}`);
      const sock = await tmuxSocket(cmd);
      const { agents } = await call<{ agents: AgentRow[] }>(cmd, 'nerdr.ls');
      const a = agents.find((x) => x.window === target || x.pane === target || x.id === target) ?? agents.find((x) => x.name === target);
      if (!a) throw new NerdrError(`no agent "${target}"`, `agents: ${agents.map((x) => x.name).join(', ') || 'none'}`);
      if (callerSecret()) throw new NerdrError('an agent window cannot attach a terminal', undefined, { code: 'not_permitted' });
      const { spawn } = await import('node:child_process');
      const code = await new Promise<number>((resolve) => {
        const child = spawn('tmux', ['-S', sock, 'attach-session', '-t', argvSafe(`=${a.session}:${a.window}`)], { stdio: 'inherit' });
        child.on('error', () => resolve(127));
        child.on('close', (c) => resolve(c ?? 1));
      });
      process.exitCode = code; // tmux attach's own status, passed on (docs/errors.md)
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
      const may = await switchable(cmd, [a]);
      if (may.agents.length === 0) {
        throw new NerdrError(`this is an agent window: it may switch only to the windows it started and theirs, and ${a.name} (${a.window}) is not one of them`, may.fix ?? undefined, { code: 'not_permitted' });
      }
      await switchTo(sock, client, a);
    });

  program
    .command('stop <target>')
    .description('end an agent: its window is closed')
    .action(async (target: string, _o: unknown, cmd: Command) => {
      await remote('stop', target);
      const r = await call<{ target: string }>(cmd, 'nerdr.stop-agent', { target, caller: callerSecret() });
      process.stdout.write(`stopped ${r.target}\n`);
    });
}
