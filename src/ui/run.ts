// Runs the dashboard against a supervisor: the agent list from the nerdr.subscribe stream
// (no polling), screens from nerdr.read, messages through nerdr.send, stops through
// nerdr.stop-agent, jumps with a one-shot `tmux switch-client`.

import blessed from 'blessed';
import { NerdrError } from '../errors.js';
import { request, subscribe, SocketRequestError } from '../supervisor/socket/index.js';
import { tmux } from '../tmux/server.js';
import { Dashboard, type DashActions } from './dash.js';
import type { AgentInfo, DashRow } from './rows.js';
import { readLooks } from './theme.js';

export interface RunDashOptions {
  /** The tmux server's socket. */
  sock: string;
  /** The supervisor's socket. */
  socketFile: string;
  /** The tmux client to switch on enter; default: the one that runs the dashboard. */
  client?: string;
}

interface Client {
  name: string;
  session: string;
}

/** The client that opened the popup (or runs the dashboard in a pane). */
async function openingClient(sock: string, explicit?: string): Promise<Client | null> {
  const args = explicit ? ['display', '-p', '-c', explicit, '#{client_name}\t#{session_name}'] : ['display', '-p', '#{client_name}\t#{session_name}'];
  const r = await tmux(sock, args);
  const [name = '', session = ''] = r.stdout.trim().split('\t');
  return r.code === 0 && name ? { name, session } : null;
}

function socketActions(opts: RunDashOptions, client: Client | null): DashActions {
  const ask = async <T>(method: string, params: unknown): Promise<T> => {
    try {
      return (await request(opts.socketFile, method, params, { timeoutMs: 5000 })) as T;
    } catch (err) {
      if (err instanceof SocketRequestError) throw new NerdrError(err.message);
      throw err;
    }
  };
  return {
    read: async (target, lines) => (await ask<{ text: string }>('nerdr.read', { target, lines, ansi: true })).text,
    send: async (target, message) => void (await ask('nerdr.send', { target, message })),
    stop: async (target) => void (await ask('nerdr.stop-agent', { target })),
    jump: async (row: DashRow) => {
      if (!client) throw new NerdrError('no tmux client to switch: run the dashboard inside tmux');
      const session = row.sessions.includes(client.session) ? client.session : row.session;
      const r = await tmux(opts.sock, ['switch-client', '-c', client.name, '-t', `=${session}:${row.window}`]);
      if (r.code !== 0) throw new NerdrError(`cannot switch to ${row.name}: ${r.stderr.trim()}`);
    },
  };
}

export async function runDash(opts: RunDashOptions): Promise<void> {
  const [client, looks] = await Promise.all([openingClient(opts.sock, opts.client), readLooks(opts.sock)]);
  const sub = await subscribe(opts.socketFile, 'nerdr.subscribe', {}, { timeoutMs: 5000 }).catch((err: unknown) => {
    throw err instanceof SocketRequestError ? new NerdrError(`cannot follow the agents: ${err.message}`, 'check the supervisor with `nerdr doctor`') : err;
  });
  const screen = blessed.screen({ smartCSR: true, fullUnicode: true, forceUnicode: true, title: 'nerdr', warnings: false } as blessed.Widgets.IScreenOptions);
  // box lines and · as UTF-8, not through the terminal's line-drawing set: tmux keeps those
  // cells as plain letters (capture-pane shows "lqqk"), and a popup is always UTF-8 capable
  (screen as unknown as { tput: { brokenACS: boolean } }).tput.brokenACS = true;
  const dash = new Dashboard({ screen, actions: socketActions(opts, client), looks });
  const first = sub.result as { agents?: AgentInfo[] };
  dash.update(first.agents ?? []);
  void (async () => {
    for await (const msg of sub.events) {
      const m = msg as { event?: string; data?: { agents?: AgentInfo[] } };
      if (m.event === 'agents' && Array.isArray(m.data?.agents)) dash.update(m.data.agents);
    }
    dash.say('the supervisor went away: the list no longer changes (q quits)');
  })();
  try {
    await dash.done;
  } finally {
    sub.close();
    screen.destroy();
  }
}
