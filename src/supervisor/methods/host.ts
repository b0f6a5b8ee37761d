// The supervisor as its socket methods see it. Each method takes only the part it names
// (`Pick<MethodHost, …>`), so a test gives it the real supervisor on a fake channel
// (test/unit/supervisor/harness.ts) and the config it wants, without a config file or a socket.

import type { AgentRow } from '../../protocol/index.js';
import type { AgentLimits, AnswerScope, ControlScope } from '../../config.js';
import { integrationFor } from '../../integrations/index.js';
import type { InboxWindow } from '../../inbox/rows.js';
import { Snoozes } from '../../inbox/snooze.js';
import { command } from '../../tmux/quote.js';
import { sleep } from '../clock.js';
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
import type { Supervisor, WakeResult } from '../supervisor.js';
import type { Hibernation } from '../hibernate.js';
import type { CreatedWindow, RespawnSpec, WindowSpec } from '../window-spec.js';

export interface SupervisorInfo {
  ready: boolean;
  client: string;
  clientPid: number;
  tmuxVersion: string;
  /** The pid of the tmux server it watches: a client compares it with the server at the socket now. */
  serverPid: number | null;
  agents: number;
  socket: string;
}

export interface MethodHost {
  readonly clock: Clock;
  readonly log: Logger;
  readonly messages: Pick<Messenger, 'enqueue' | 'retry' | 'receipt' | 'cancel' | 'edit'>;
  /** What the inbox methods read and do (src/inbox/). */
  readonly inbox: InboxHost;
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
  /** docs/lifecycle.md: src/supervisor/supervisor.ts hibernate / wake. */
  hibernate(a: WatchedAgent): Promise<Hibernation>;
  wake(a: WatchedAgent, opts: { why: string; callerEnv?: Record<string, unknown> | undefined }): Promise<WakeResult>;
  stop(): Promise<void>;
  /** What `nerdr.restore` works on (src/supervisor/restore.ts). */
  readonly restore: RestoreHost<WatchedAgent>;
}

/** The inbox as its methods see it. */
export interface InboxHost {
  /** A window as the inbox reads it: its row, its screen, its dialogs, its queue. */
  window(a: WatchedAgent): InboxWindow;
  readonly snoozes: Pick<Snoozes, 'has' | 'set'>;
  /**
   * Types keys into the window's pane as a person would: one key at a time, `gapMs` apart
   * (a TUI reads an Escape and the next key sent at once as Alt+key); a key `literal:TEXT` is
   * typed as text. Resolves once tmux took the last.
   */
  type(a: WatchedAgent, keys: readonly string[], gapMs: number): Promise<void>;
}

export interface AgentControl {
  scope: ControlScope;
  /** `[agents] answer`: whether an agent may answer its helpers' dialogs. */
  answer?: AnswerScope;
  limits: AgentLimits;
  path: string;
}

export interface HostOptions {
  /** The socket the supervisor serves, which `nerdr.info` names. */
  socketPath: string;
  /** By default config.toml's, read at each ask. */
  control?: () => AgentControl;
  /** Where snoozed inbox rows are kept (paths.ts serverFiles().snoozes); null: in memory only. */
  snoozeFile?: string | null;
}

function configControl(): AgentControl {
  const loaded = loadConfig(configDir());
  return { scope: loaded.config.control, answer: loaded.config.answer, limits: loaded.config.limits, path: loaded.path };
}

export function supervisorHost(sup: Supervisor, opts: HostOptions): MethodHost {
  return {
    clock: sup.clock,
    log: sup.log,
    messages: sup.messages,
    inbox: inboxHost(sup, new Snoozes(opts.snoozeFile ?? null, () => sup.clock.now(), (m) => sup.log('warn', m))),
    active: sup.active,
    events: sup,
    windows: () => [...sup.agents.values()],
    watching: (a) => sup.agents.get(a.paneId) === a,
    row: (a) => agentRow(a, sup.messages, sup.conflicts),
    bySecret: (secret) => sup.windowBySecret(secret),
    control: opts.control ?? configControl,
    info: () => ({
      ready: sup.ready,
      client: sup.clientName,
      clientPid: sup.clientPid,
      tmuxVersion: sup.tmuxVersion,
      serverPid: sup.serverPid,
      agents: sup.agents.size,
      socket: opts.socketPath,
    }),
    createWindow: (spec) => sup.createWindow(spec),
    respawn: (a, spec) => sup.respawn(a, spec),
    closeWindow: (a) => sup.closeWindow(a),
    hibernate: (a) => sup.hibernate(a),
    wake: (a, o) => sup.wake(a, o),
    stop: () => sup.stop(),
    restore: restoreHost(sup),
  };
}

/** A window as the inbox reads it (its row, screen, dialogs and queue): for its methods and `[[on]]`'s prompt id. */
export function inboxWindow(sup: Supervisor, a: WatchedAgent): InboxWindow {
  return {
    row: agentRow(a, sup.messages, sup.conflicts),
    screen: () => (a.mirror ? { text: a.mirror.renderText(), ansi: a.mirror.renderAnsi() } : null),
    dialogs: integrationFor(a.agent)?.dialogs ?? null,
    queue: sup.messages.queue(a),
  };
}

function inboxHost(sup: Supervisor, snoozes: Snoozes): InboxHost {
  return {
    snoozes,
    window: (a) => inboxWindow(sup, a),
    type: async (a, keys, gapMs) => {
      for (const [i, k] of keys.entries()) {
        if (i > 0) await sleep(sup.clock, gapMs);
        const cmd = k.startsWith('literal:') ? command('send-keys', '-l', '-t', a.paneId, '--', k.slice('literal:'.length)) : command('send-keys', '-t', a.paneId, k);
        await sup.run(cmd);
      }
    },
  };
}

/** The supervisor as the restore sees it (supervisor/restore.ts). */
function restoreHost(sup: Supervisor): RestoreHost<WatchedAgent> {
  return {
    clock: sup.clock,
    run: (cmd) => sup.run(cmd),
    live: () =>
      [...sup.agents.values()].map((a) => {
        const row = agentRow(a, sup.messages, sup.conflicts);
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
    hibernated: (a, h) => sup.markHibernated(a, h),
    onChange: (fn) => {
      sup.on('change', fn);
      return () => void sup.off('change', fn);
    },
  };
}
