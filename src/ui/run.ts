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
import type { RemoteAgent, HostStatus } from '../fleet/link.js';
import { loadConfig, type FleetConfig } from '../config.js';
import { configDir } from '../paths.js';

export interface RunDashOptions {
  /** The tmux server's socket. */
  sock: string;
  /** The supervisor's socket. */
  socketFile: string;
  /** The tmux client to switch on enter; default: the one that runs the dashboard. */
  client?: string;
  /** Also the fleet's hosts' agents (`dash --fleet`), named `HOST:NAME`. */
  fleet?: boolean;
  /** The NERDR_TAB of the agent window the dashboard runs in: its sends, stops and jumps are limited as the CLI's (docs/orchestration.md). */
  caller?: string;
}

/** A fleet host's agent as a dashboard row's agent: `HOST:NAME`, its window `HOST:@N`. */
export function fleetAgentInfo(host: string, r: RemoteAgent): AgentInfo {
  return {
    ...(r as unknown as AgentInfo),
    id: `${host}:${r.id}`,
    name: `${host}:${r.name}`,
    window: `${host}:${r.window}`,
    pane: '',
    sessions: [r.session],
    exitStatus: null,
    background: false,
    displayAgent: null,
    reportedAgent: null,
    stateLabel: null,
    title: null,
  };
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
      if (err instanceof SocketRequestError) throw new NerdrError(err.message, err.fix, { code: err.code === 'timeout' ? 'no_answer' : err.code });
      throw err;
    }
  };
  const fleet: FleetConfig | null = opts.fleet ? loadConfig(configDir()).config.fleet : null;
  /** `HOST:@N` of a fleet row: the host and the window there. */
  const remote = (target: string): { host: string; window: string } | null => {
    const m = /^([^:]+):(@\d+)$/.exec(target);
    return fleet && m && fleet.hosts[m[1]!] ? { host: m[1]!, window: m[2]! } : null;
  };
  const overSsh = async (host: string, args: string[]): Promise<string> => {
    const { captureRemote, refuseAgentWindow } = await import('../cli/fleet.js');
    refuseAgentWindow(args[0]!, `${host}:${args[1] ?? ''}`);
    const r = await captureRemote(fleet!, fleet!.hosts[host]!, args);
    if (r.code !== 0) throw new NerdrError(`${host}: ${(r.stderr.trim().split('\n').pop() ?? '') || `exit ${r.code}`}`, `try it by hand: nerdr ${args.join(' ')} on ${host} (nerdr fleet ls shows how it is reached)`);
    return r.stdout;
  };
  return {
    read: async (target, lines) => {
      const far = remote(target);
      if (far) return overSsh(far.host, ['read', far.window, '--ansi', ...(lines ? ['--lines', String(lines)] : [])]);
      return (await ask<{ text: string }>('nerdr.read', { target, lines, ansi: true })).text;
    },
    send: async (target, message) => {
      const far = remote(target);
      if (far) return void (await overSsh(far.host, ['send', far.window, message]));
      await ask('nerdr.send', { target, message, caller: opts.caller });
    },
    stop: async (target) => {
      const far = remote(target);
      if (far) return void (await overSsh(far.host, ['stop', far.window]));
      await ask('nerdr.stop-agent', { target, caller: opts.caller });
    },
    jump: async (row: DashRow) => {
      if (!client) throw new NerdrError('no tmux client to switch: run the dashboard inside tmux', "tmux display-popup -E -w 80% -h 80% 'nerdr dash'");
      const far = remote(row.window);
      if (far) {
        const { openFleetWindow } = await import('../cli/fleet.js');
        const h = (await ask<{ hosts: HostStatus[] }>('nerdr.fleet', {})).hosts.find((x) => x.name === far.host);
        const agent = h?.agents.find((x) => x.window === far.window);
        if (!agent) throw new NerdrError(`${row.name} is no longer on ${far.host}`, `nerdr ls --fleet shows what runs there now`, { code: 'agent_gone' });
        return openFleetWindow(opts.sock, client, fleet!, far.host, agent);
      }
      if (opts.caller) {
        const may = await ask<{ all: boolean; windows: string[]; fix?: string }>('nerdr.may', { caller: opts.caller, action: 'focus' });
        if (!may.all && !may.windows.includes(row.window)) {
          throw new NerdrError(`this is an agent window: it may switch only to the windows it started and theirs, and ${row.name} (${row.window}) is not one of them`, may.fix, { code: 'not_permitted' });
        }
      }
      const session = row.sessions.includes(client.session) ? client.session : row.session;
      const r = await tmux(opts.sock, ['switch-client', '-c', client.name, '-t', `=${session}:${row.window}`]);
      if (r.code !== 0) throw new NerdrError(`cannot switch to ${row.name}: ${r.stderr.trim()}`, undefined, { code: 'tmux_command' });
    },
  };
}

export async function runDash(opts: RunDashOptions): Promise<void> {
  const [client, looks] = await Promise.all([openingClient(opts.sock, opts.client), readLooks(opts.sock)]);
  const sub = await subscribe(opts.socketFile, 'nerdr.subscribe', {}, { timeoutMs: 5000 }).catch((err: unknown) => {
    throw err instanceof SocketRequestError ? new NerdrError(`cannot follow the agents: ${err.message}`, 'check the supervisor with `nerdr doctor`', { code: err.code === 'timeout' ? 'no_answer' : err.code }) : err;
  });
  const screen = blessed.screen({ smartCSR: true, fullUnicode: true, forceUnicode: true, title: 'nerdr', warnings: false } as blessed.Widgets.IScreenOptions);
  // box lines and · as UTF-8, not through the terminal's line-drawing set: tmux keeps those
  // cells as plain letters (capture-pane shows "lqqk"), and a popup is always UTF-8 capable
  (screen as unknown as { tput: { brokenACS: boolean } }).tput.brokenACS = true;
  const dash = new Dashboard({ screen, actions: socketActions(opts, client), looks });
  const first = sub.result as { agents?: AgentInfo[] };
  let local: AgentInfo[] = first.agents ?? [];
  let far: AgentInfo[] = [];
  const show = (): void => dash.update([...local, ...far]);
  show();
  void (async () => {
    for await (const msg of sub.events) {
      const m = msg as { event?: string; data?: { agents?: AgentInfo[] } };
      if (m.event === 'agents' && Array.isArray(m.data?.agents)) {
        local = m.data.agents;
        show();
      }
    }
    dash.say('the supervisor went away: the list no longer changes (q quits)');
  })();
  // the fleet's agents: what the local supervisor holds, asked every 2 s (nothing remote is asked)
  let fleetTimer: NodeJS.Timeout | null = null;
  if (opts.fleet) {
    const pull = async (): Promise<void> => {
      const a = (await request(opts.socketFile, 'nerdr.fleet', {}, { timeoutMs: 5000 })) as { hosts: HostStatus[] };
      far = a.hosts.flatMap((h) => h.agents.map((r) => fleetAgentInfo(h.name, r)));
      show();
    };
    await pull().catch(() => undefined);
    fleetTimer = setInterval(() => void pull().catch(() => undefined), 2000);
  }
  try {
    await dash.done;
  } finally {
    if (fleetTimer) clearInterval(fleetTimer);
    sub.close();
    screen.destroy();
  }
}
