// Runs the dashboard against a supervisor: the agent list from the nerdr.subscribe stream
// (no polling), the inbox from nerdr.inbox read again after each of its events, screens from
// nerdr.read, messages through nerdr.send, stops through nerdr.stop-agent, answers, snoozes and
// cancels through nerdr.answer, nerdr.snooze and nerdr.cancel, jumps with a one-shot
// `tmux switch-client`. A fleet host's rows and agents are acted on with the host's own nerdr
// over ssh.

import blessed from 'blessed';
import { exitFor, NerdrError } from '../errors.js';
import { nerdrSaid } from '../text.js';
import { request, subscribe, SocketRequestError } from '../supervisor/socket/index.js';
import { tmux } from '../tmux/server.js';
import { Dashboard, type DashActions } from './dash.js';
import type { AgentInfo, DashRow } from './rows.js';
import { readLooks } from './theme.js';
import type { RemoteAgent, HostStatus } from '../fleet/link.js';
import type { InboxRow } from '../protocol/index.js';
import { loadConfig, type FleetConfig } from '../config.js';
import { configDir, nerdrBin } from '../paths.js';
import { execFile } from 'node:child_process';

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

/**
 * What a fleet host's nerdr refused, as an error here: its `nerdr: what failed` line (not the
 * `fix:` after it), and the code its exit status keeps (7: the prompt changed).
 */
export function hostError(host: string, args: string[], status: number, stderr: string): NerdrError {
  const code = status === exitFor('prompt_changed') ? 'prompt_changed' : undefined;
  return new NerdrError(`${host}: ${nerdrSaid(stderr, status)}`, `try it by hand: nerdr ${args.join(' ')} on ${host} (nerdr fleet ls shows how it is reached)`, code ? { code } : {});
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

/** How often the fleet's hosts' inboxes are read (over ssh, one `nerdr inbox --json` per host). */
const FLEET_INBOX_MS = 5000;

interface SocketActions extends DashActions {
  /** Reads the fleet's connected hosts' inboxes again (kept for `inbox()`); false when no host is configured. */
  pullFleetInbox(): Promise<boolean>;
}

function socketActions(opts: RunDashOptions, client: Client | null): SocketActions {
  const ask = async <T>(method: string, params: unknown, timeoutMs = 5000): Promise<T> => {
    try {
      return (await request(opts.socketFile, method, params, { timeoutMs })) as T;
    } catch (err) {
      if (err instanceof SocketRequestError) throw new NerdrError(err.message, err.fix, { code: err.code === 'timeout' ? 'no_answer' : err.code });
      throw err;
    }
  };
  // the inbox shows the fleet's rows whenever hosts are configured; the agent list with --fleet
  const configured = loadConfig(configDir()).config.fleet;
  const fleet: FleetConfig | null = Object.keys(configured.hosts).length ? configured : null;
  let fleetRows: InboxRow[] = [];
  /** `HOST:@N` of a fleet row: the host and the window there. */
  const remote = (target: string): { host: string; window: string } | null => {
    const m = /^([^:]+):(@\d+)$/.exec(target);
    return fleet && m && fleet.hosts[m[1]!] ? { host: m[1]!, window: m[2]! } : null;
  };
  const overSsh = async (host: string, args: string[]): Promise<string> => {
    const { captureRemote, refuseAgentWindow } = await import('../cli/fleet.js');
    refuseAgentWindow(args[0]!, `${host}:${args[1] ?? ''}`);
    const r = await captureRemote(fleet!, fleet!.hosts[host]!, args);
    if (r.code !== 0) throw hostError(host, args, r.code, r.stderr);
    return r.stdout;
  };
  /** The fleet's connected hosts' inboxes (one `nerdr inbox --json` each over ssh), kept for `inbox()`. */
  const pullFleetInbox = async (): Promise<boolean> => {
    if (!fleet) return false;
    const { hostInboxes } = await import('../cli/fleet.js');
    const hosts = (await ask<{ hosts: HostStatus[] }>('nerdr.fleet', {})).hosts.filter((h) => h.state === 'connected' && fleet.hosts[h.name]);
    // a host that fails shows no rows here; `nerdr inbox --fleet` says why
    fleetRows = (await hostInboxes(fleet, hosts.map((h) => h.name))).rows;
    return true;
  };
  /** A fleet row's action: the host's own nerdr over ssh, then its inbox read again. */
  const onHost = async (host: string, args: string[]): Promise<void> => {
    await overSsh(host, args);
    await pullFleetInbox().catch(() => undefined);
  };
  return {
    inbox: async () => {
      const local = (await ask<{ rows: InboxRow[] }>('nerdr.inbox', {})).rows;
      return fleetRows.length ? [...local, ...fleetRows].sort((a, b) => a.since - b.since) : local;
    },
    pullFleetInbox,
    answer: async (row, choice) => {
      if (row.host) return onHost(row.host, ['answer', row.window, String(choice), '--prompt', row.id]);
      await ask('nerdr.answer', { target: row.window, prompt: row.id, choice, caller: opts.caller });
    },
    snooze: async (row, ms) => {
      if (row.host) return onHost(row.host, ['inbox', 'snooze', row.id, `${Math.ceil(ms / 1000)}s`]);
      await ask('nerdr.snooze', { id: row.id, forMs: ms, caller: opts.caller });
    },
    cancel: async (row) => {
      if (!row.message) throw new NerdrError('this row holds no queued message', undefined, { code: 'not_queued' });
      if (row.host) return onHost(row.host, ['send', '--cancel', row.message.id]);
      await ask('nerdr.cancel', { id: row.message.id, caller: opts.caller });
    },
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
    newAgent: async (spec) => {
      // the CLI's own `nerdr new` (its plan, worktree and checks), with this process's environment:
      // from an agent window, its NERDR_TAB keeps the agent limits
      const args = [nerdrBin, '-S', opts.sock, 'new', spec.agent, '-d', '--json', ...(spec.name ? ['--name', spec.name] : []), ...(spec.worktree ? ['--worktree', spec.worktree] : []), ...(spec.prompt ? ['--prompt', spec.prompt] : [])];
      const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, args, { cwd: spec.cwd, timeout: 120_000, maxBuffer: 1024 * 1024 }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }));
      });
      if (r.code !== 0) throw new NerdrError(nerdrSaid(r.stderr, r.code), undefined, { code: 'failed' });
      return (JSON.parse(r.stdout) as { window: string }).window;
    },
    stop: async (target) => {
      const far = remote(target);
      if (far) return void (await overSsh(far.host, ['stop', far.window]));
      await ask('nerdr.stop-agent', { target, caller: opts.caller });
    },
    hibernate: async (target) => {
      const far = remote(target);
      if (far) return void (await overSsh(far.host, ['hibernate', far.window]));
      // up to 5 s for the agent's own exit, 5 s for a wake's resume check
      await ask('nerdr.hibernate', { target, caller: opts.caller }, 30_000);
    },
    wake: async (target) => {
      const far = remote(target);
      if (far) return void (await overSsh(far.host, ['wake', far.window]));
      await ask('nerdr.wake', { target, callerEnv: process.env, caller: opts.caller }, 30_000);
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
  const actions = socketActions(opts, client);
  const dash = new Dashboard({ screen, actions, looks });
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
        // whatever changed may change what waits: the dashboard reads the inbox once per burst
        dash.refreshInbox();
      }
    }
    dash.say('the supervisor went away: the list no longer changes (q quits)');
  })();
  // the fleet's agents: what the local supervisor holds, asked every 2 s (nothing remote is asked)
  let fleetTimer: NodeJS.Timeout | null = null;
  let inboxTimer: NodeJS.Timeout | null = null;
  // the fleet hosts' inboxes: read over ssh in the background, never in the way of the local one
  let pulling = false;
  const pullInbox = (): void => {
    if (pulling) return; // a slow host: the next read waits for this one
    pulling = true;
    void actions
      .pullFleetInbox()
      .then(
        (any) => any && dash.refreshInbox(),
        () => undefined,
      )
      .finally(() => (pulling = false));
  };
  pullInbox();
  inboxTimer = setInterval(pullInbox, FLEET_INBOX_MS);
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
    clearInterval(inboxTimer);
    sub.close();
    screen.destroy();
  }
}
