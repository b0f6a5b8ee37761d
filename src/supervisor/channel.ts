// The supervisor's one connection to tmux, as an interface: command lines out and their replies
// back, notifications and pane output in, and an end. The real one is a control-mode client
// attached to _nerdr (src/tmux/client.ts); the unit tests drive the supervisor with a fake.

import { ControlClient, type Reply } from '../tmux/client.js';
import { NerdrError } from '../errors.js';
import { OutputKeeper } from '../tmux/keeper.js';
import { serverRunning, tmux } from '../tmux/server.js';
import { HIDDEN_SESSION } from './discover.js';

export interface ControlChannelEvents {
  /** Bytes a pane wrote (%output / %extended-output, decoded). */
  output: [pane: string, data: Buffer];
  /** Any other %-line tmux sends on its own: `%layout-change @1 …` is ('layout-change', '@1 …'). */
  notification: [name: string, args: string];
  /** The channel closed (tmux went away, or the client was killed). */
  exit: [reason: string];
}

export interface ControlChannel {
  /**
   * Sends commands on one line (nothing else runs between them). `done` gets one reply per
   * command, called synchronously from the parser before any later line is read: output that
   * comes after the reply was written after the commands ran (snapshot-then-stream relies on it).
   */
  send(commands: string[], done: (replies: Reply[]) => void): void;
  on<E extends keyof ControlChannelEvents>(event: E, listener: (...args: ControlChannelEvents[E]) => void): unknown;
  readonly closed: boolean;
  /** Detaches cleanly: stops output, reads until tmux closes the channel. */
  close(): Promise<void>;
  /** Ends the channel without a goodbye (tests of crash recovery). */
  kill(): void;
  /** Pids of the channel's own other tmux clients (the output keeper), which are never stale. */
  readonly companions?: number[];
}

/** Where channels come from: one per connection, a new one after a reconnect. */
export interface ControlServer {
  /** Makes sure _nerdr exists, then attaches a new channel to it. */
  open(): Promise<ControlChannel>;
  /** Whether the tmux server is still running (after a channel closed: reconnect or stop). */
  running(): Promise<boolean>;
  /**
   * The pid of the tmux server at the socket now, or null: after a channel closed, a server with
   * another pid is not the one this supervisor watched (it was killed and another started at the
   * same socket), so the supervisor stops rather than serve it in the new one's place.
   */
  serverPid?(): Promise<number | null>;
  /**
   * `list-clients -F format` run by a plain tmux command, not a control client: what the
   * supervisor looks at before its own control clients attach (src/supervisor/stale.ts).
   */
  clients?(format: string): Promise<string>;
}

/**
 * The real control client, as a channel. The output keeper (src/tmux/keeper.ts) is started only
 * once the client has attached, and ends with it: two control clients identifying themselves at
 * once can crash tmux. A control client that has said it is one but not yet that it is done has
 * no control state, and an attach-session run meanwhile writes pending configuration errors to
 * the first client in the server's list (cfg_show_causes), which segfaults in control_write when
 * that is the one still identifying (3.2a to 3.7c; src/supervisor/holder.ts, ifDeadPane). Started
 * one after the other, ours never are: the keeper comes after a client that is already attached.
 */
export function controlClientChannel(client: ControlClient, startKeeper?: () => OutputKeeper): ControlChannel {
  let keeper: OutputKeeper | undefined;
  let ended = false;
  if (startKeeper) client.once('attached', () => {
    if (!ended) keeper = startKeeper();
  });
  const end = () => {
    ended = true;
    keeper?.close();
  };
  client.on('exit', end);
  return {
    send: (commands, done) => client.sendWith(commands, done),
    on: (event, listener) => client.on(event, listener as never),
    get closed() {
      return client.isClosed;
    },
    close: () => {
      end();
      return client.close();
    },
    kill: () => {
      end();
      client.kill();
    },
    get companions() {
      return keeper?.pid ? [keeper.pid] : [];
    },
  };
}

/** The tmux server at `socket`, reached by a control-mode client attached to _nerdr. */
export function tmuxControlServer(socket: string): ControlServer {
  return {
    async open() {
      await ensureHiddenSession(socket);
      return controlClientChannel(new ControlClient(socket, HIDDEN_SESSION), () => new OutputKeeper(socket, HIDDEN_SESSION));
    },
    running: () => serverRunning(socket),
    serverPid: async () => {
      const r = await tmux(socket, ['display', '-p', '#{pid}']);
      const pid = Number(r.stdout.trim());
      return r.code === 0 && pid > 0 ? pid : null;
    },
    clients: async (format) => {
      const r = await tmux(socket, ['list-clients', '-F', format]);
      return r.code === 0 ? r.stdout : '';
    },
  };
}

/** `_nerdr`'s own window, and what it runs: a placeholder, and the anchor of the control client's subscriptions. */
export const HOME_WINDOW = '_home';
export const HOME_PROGRAM = ['sh', '-c', "printf 'nerdr internal session: agent windows are linked here so nerdr can watch them.\\n'; exec tail -f /dev/null"];

/**
 * Creates `_nerdr` with its placeholder window when missing; with `startServer`, the tmux
 * server too when none runs (`nerdr restore` after the server is gone).
 */
export async function ensureHiddenSession(socket: string, opts: { startServer?: boolean } = {}): Promise<void> {
  const has = await tmux(socket, ['has-session', '-t', `=${HIDDEN_SESSION}`]);
  if (has.code === 0) return;
  const r = await tmux(socket, ['new-session', '-d', '-E', '-s', HIDDEN_SESSION, '-n', HOME_WINDOW, '-x', '160', '-y', '48', ...HOME_PROGRAM], opts);
  if (r.code !== 0 && !/duplicate session/.test(r.stderr)) {
    throw new NerdrError(`cannot create the ${HIDDEN_SESSION} session: ${r.stderr.trim()}`, '`nerdr doctor` checks the tmux server', { code: 'tmux_error' });
  }
}
