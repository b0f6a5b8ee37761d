// The supervisor as its socket methods see it. Each method takes only the part it names
// (`Pick<MethodHost, …>`), so a test gives it the real supervisor on a fake channel
// (test/unit/supervisor/harness.ts) and the config it wants, without a config file or a socket.

import type { AgentRow } from '../../protocol/index.js';
import type { AgentLimits, ControlScope } from '../../config.js';
import { loadConfig } from '../../config.js';
import { configDir } from '../../paths.js';
import { quote } from '../../tmux/quote.js';
import type { WatchedAgent } from '../agent.js';
import type { ActiveWindows } from '../active.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Messenger } from '../messages.js';
import type { RestoreHost } from '../restore.js';
import { agentRow } from '../rows.js';
import type { Supervisor } from '../supervisor.js';
import type { CreatedWindow, RespawnSpec, WindowSpec } from '../window-spec.js';

export interface SupervisorInfo {
  ready: boolean;
  client: string;
  clientPid: number;
  tmuxVersion: string;
  agents: number;
  socket: string;
}

export interface MethodHost {
  readonly clock: Clock;
  readonly log: Logger;
  readonly messages: Pick<Messenger, 'enqueue' | 'retry' | 'receipt'>;
  /** Each user session's current window, asked of tmux only while someone follows it. */
  readonly active: Pick<ActiveWindows, 'follow' | 'release'>;
  /** `change` (a window), `receipt` (a queued message moved on), `active` (a session's window). */
  readonly events: Pick<Supervisor, 'on' | 'off'>;
  /** The watched windows now. */
  windows(): WatchedAgent[];
  /** Whether this window is still watched (not closed, not replaced by a new scan's). */
  watching(a: WatchedAgent): boolean;
  row(a: WatchedAgent): AgentRow;
  /** The window whose secret (NERDR_TAB) this is, else null. */
  bySecret(secret: string): WatchedAgent | null;
  /** `[agents] control`, `max_helpers`, `max_depth` and the config file that sets them (read when asked: an edit counts at once). */
  control(): AgentControl;
  info(): SupervisorInfo;
  createWindow(spec: WindowSpec): Promise<CreatedWindow>;
  respawn(a: WatchedAgent, spec: RespawnSpec): Promise<void>;
  closeWindow(a: WatchedAgent): Promise<void>;
  stop(): Promise<void>;
  /** What `nerdr.restore` works on (src/supervisor/restore.ts). */
  readonly restore: RestoreHost<WatchedAgent>;
}

export interface AgentControl {
  scope: ControlScope;
  limits: AgentLimits;
  path: string;
}

export interface HostOptions {
  /** The socket the supervisor serves, which `nerdr.info` names. */
  socketPath: string;
  /** By default config.toml's, read at each ask. */
  control?: () => AgentControl;
}

function configControl(): AgentControl {
  const loaded = loadConfig(configDir());
  return { scope: loaded.config.control, limits: loaded.config.limits, path: loaded.path };
}

export function supervisorHost(sup: Supervisor, opts: HostOptions): MethodHost {
  return {
    clock: sup.clock,
    log: sup.log,
    messages: sup.messages,
    active: sup.active,
    events: sup,
    windows: () => [...sup.agents.values()],
    watching: (a) => sup.agents.get(a.paneId) === a,
    row: (a) => agentRow(a, sup.messages),
    bySecret: (secret) => sup.windowBySecret(secret),
    control: opts.control ?? configControl,
    info: () => ({
      ready: sup.ready,
      client: sup.clientName,
      clientPid: sup.clientPid,
      tmuxVersion: sup.tmuxVersion,
      agents: sup.agents.size,
      socket: opts.socketPath,
    }),
    createWindow: (spec) => sup.createWindow(spec),
    respawn: (a, spec) => sup.respawn(a, spec),
    closeWindow: (a) => sup.closeWindow(a),
    stop: () => sup.stop(),
    restore: restoreHost(sup),
  };
}

/** The supervisor as the restore sees it (supervisor/restore.ts). */
function restoreHost(sup: Supervisor): RestoreHost<WatchedAgent> {
  return {
    clock: sup.clock,
    run: (cmd) => sup.run(cmd),
    live: () =>
      [...sup.agents.values()].map((a) => {
        const row = agentRow(a, sup.messages);
        return { session: row.session, index: row.windowIndex, agent: row.agent, cwd: row.cwd, conversationId: row.conversationId, exited: row.state === 'exited' };
      }),
    agent: (pane) => sup.agents.get(pane),
    // the screen and some history: tmux's "Pane is dead" line can scroll a short message out of view
    screen: async (a) => {
      try {
        return await sup.run(`capture-pane -p -J -S -200 -t ${quote(a.paneId)}`);
      } catch {
        return a.mirror?.renderText() ?? '';
      }
    },
    createWindow: (spec) => sup.createWindow(spec),
    respawn: (a, spec) => sup.respawn(a, spec),
    requeue: (a, m) => sup.messages.requeue(a, m),
    onChange: (fn) => {
      sup.on('change', fn);
      return () => void sup.off('change', fn);
    },
  };
}
