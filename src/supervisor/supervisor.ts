// The supervisor: the one place where tmux, the socket and timers meet.
// %output → mirror → (detect → arbiter) → lights. One per tmux server.

import { EventEmitter } from 'node:events';
import { replyText, type Reply } from '../tmux/client.js';
import { command, escapeFormat } from '../tmux/quote.js';
import { tmuxFeatures, type TmuxFeatures } from '../tmux/features.js';
import { installLights } from '../tmux/status.js';
import type { ManifestRegistry } from '../detect/index.js';
import type { ArbiterUpdate } from '../state/index.js';
import { probePane } from '../detect/procfs.js';
import type { Identification } from '../detect/identify.js';
import type { Report } from './socket/index.js';
import { applyHerdrReport, reportError } from './reports.js';
import { mapHookPayload, refineFact } from '../integrations/events/index.js';
import { WatchedAgent, type WindowHost } from './agent.js';
import { HIDDEN_SESSION, LIST_PANES_FORMAT, parseLayoutSizes, parsePaneList } from './discover.js';
import { parseSubscriptionChange, windowSubscriptionName, windowSubscriptionSpec } from './pane-watch.js';
import { CLIENT_VIEWS_FORMAT, parseClientViews } from './client-list.js';
import { LightsWriter } from './lights.js';
import { lightBgFrom, looksFromOptions, offlineLookFrom, parseShowOptions } from '../looks.js';
import { StatusKeeper, STATUS_SUBSCRIPTION } from './status-keeper.js';
import { FOCUS_SUBSCRIPTION } from './herdr-uplink.js';
import { detachRedrawHook } from '../tmux/supervised.js';
import { Messenger } from './messages.js';
import { QueueStore, type Receipt } from '../store/queue.js';
import { SessionStore } from '../store/sessions.js';
import { SessionSaver } from './saver.js';
import { SEEN_AFTER_MS, ViewWatcher } from './views.js';
import { ConflictWatch } from './conflict-watch.js';
import { WorktreeRegistry } from '../worktrees/registry.js';
import { ActiveWindows, type ActiveWindow } from './active.js';
import { endStaleClients } from './stale.js';
import { Notifier, type NotifyChannels } from './notify.js';
import path from 'node:path';
import type { Logger } from './log.js';
import { TmuxCommandError } from '../errors.js';
import { sleep, systemClock, until, type Clock, type Timer } from './clock.js';
import { RpcError } from './socket/errors.js';
import { stripControl } from './socket/sanitize.js';
import { AgentStatusWatcher } from './agent-status.js';
import { callerEnvironment, exitChannel, hashSecret, newAgentId, newSecret, newWindowCommands, respawnCommands } from './create.js';
import { ExitMarkers } from './exit-marker.js';
import { serverBinary } from '../tmux/server.js';
import { loadConfig, type OnLimit } from '../config.js';
import { agentEnv, type CreatedWindow, type RespawnSpec, type WindowSpec } from './window-spec.js';
import { configDir, serverFiles } from '../paths.js';
import { mkdirSync, rmSync } from 'node:fs';
import { writeFileAtomic } from '../store/atomic.js';
import { integrationFor, resumeArgs } from '../integrations/index.js';
import { planLaunch } from '../integrations/plan.js';
import { stripResumeArgs } from '../store/restore-plan.js';
import { agentRow } from './rows.js';
import { resumeFailed } from './restore.js';
import { HIBERNATED_OPTION, hibernatedArgv, hibernationJson, keptScreen, listProcesses, processTree, treeRssKb, whyNotHibernate, type Hibernation, type TreeProcess } from './hibernate.js';
import { HOME_PROGRAM, HOME_WINDOW, tmuxControlServer, type ControlChannel, type ControlServer } from './channel.js';

/** How far behind (s) our control client may fall before tmux drops its backlog of a pane. */
export const PAUSE_AFTER_S = 2;

export interface SupervisorOptions {
  tmuxSocket: string;
  log: Logger;
  /** Insert the light prefix into the user's status formats (with a backup). */
  installLights: boolean;
  manifests: ManifestRegistry;
  /** Where queued messages are kept (<state>/queues). */
  stateDir: string;
  /** Which notification channels are on (config.toml [notify]). */
  notify?: NotifyChannels;
  /** Time and timers (the unit tests pass a fake); `now` alone replaces only the time. */
  clock?: Clock;
  now?: () => number;
  /** Where the control channel comes from; by default a control-mode client on tmuxSocket. */
  control?: ControlServer;
  /** This supervisor's socket, which the windows' hooks reach (by default the server's usual one). */
  socketPath?: string;
  /** Which agent a pane's processes are (by default from /proc). */
  probe?: (panePid: number) => Promise<Identification>;
  /** `[agents] on_limit` and `limit_message`; by default config.toml's, read when a limit resets. */
  onLimit?: () => { onLimit: OnLimit; message: string };
  /** Hibernation (docs/lifecycle.md): config.toml's [agents] hibernate_after (ms, null: off) and wake_on_focus. */
  lifecycle?: { hibernateAfterMs: number | null; wakeOnFocus: boolean };
  /** The machine's processes (by default from /proc) and a signal to one: what hibernation ends (tests pass fakes). */
  processes?: () => Promise<TreeProcess[]>;
  kill?: (pid: number, signal: NodeJS.Signals | 0) => void;
  /** How a woken agent is launched, with nerdr's wiring (by default integrations/plan.ts planLaunch). */
  plan?: typeof planLaunch;
}

/** A hibernating agent's tree gets this long after SIGTERM (its own clean exit) before SIGKILL. */
export const HIBERNATE_TERM_MS = 5000;

/**
 * The client's subscriptions besides the windows' own (pane-watch.ts), all made on `_nerdr`'s own
 * window; removing one it lacks is no error.
 */
const SUBSCRIPTIONS = [STATUS_SUBSCRIPTION, FOCUS_SUBSCRIPTION];

export interface WakeResult {
  conversationId: string;
  argv: string[];
  /** Why the resume failed, when it did (a new conversation was started in the window). */
  resumeFailed: string | null;
}

export interface SupervisorEvents {
  /** An agent's state, counts or presence changed. */
  change: [agent: WatchedAgent];
  /** The window some user session shows changed (only while someone follows: `active.follow()`). */
  active: [list: ActiveWindow[]];
  /** A queued message's receipt moved on (typed in, its turn started, a state after it, closed). */
  receipt: [agent: WatchedAgent, receipt: Receipt];
  /** A subscription other than nerdr's pane one changed (`refresh-client -B` by another part). */
  subscription: [name: string, value: string];
  /**
   * A new control client, or `_nerdr`'s own window made again: subscriptions of other parts are
   * to be made (again) on this window (`@3`), not on the session (src/supervisor/pane-watch.ts).
   */
  anchored: [window: string];
  exit: [];
}

export class Supervisor extends EventEmitter<SupervisorEvents> {
  readonly agents = new Map<string, WatchedAgent>();
  private channel: ControlChannel | null = null;
  private readonly control: ControlServer;
  private lights: LightsWriter;
  /** Puts the prefixes back after a config reload (part of the lights: src/supervisor/status-keeper.ts). */
  private readonly statusKeeper: StatusKeeper;
  private scanTimer: Timer | null = null;
  /** Panes created by `nerdr new` in this process: their agent starts now (startup grace). */
  private readonly fresh = new Set<string>();
  private readonly views: ViewWatcher;
  /** Whose branch would conflict (a mark in its light): checked when a worktree's agent ends a turn. */
  readonly conflicts: ConflictWatch;
  /** Each user session's current window, for `nerdr review`. */
  readonly active: ActiveWindows;
  readonly messages: Messenger;
  readonly notifier: Notifier;
  private readonly saver: SessionSaver;
  /** The agents' own status files (Claude Code's sessions/<pid>.json). */
  readonly statusFiles: AgentStatusWatcher;
  /** What every window is given: the channel, the clock, the rules, and where it reports. */
  private readonly host: WindowHost;
  private stopping = false;
  readonly clock: Clock;
  private readonly socketPath: string;
  ready = false;
  clientName = '';
  clientPid = 0;
  tmuxVersion = '';
  /** The pid of the tmux server this supervisor watches (its control client's), null before it connects. */
  serverPid: number | null = null;
  /** What this tmux version can do (set once connected). */
  tmux: TmuxFeatures = tmuxFeatures('');
  /** The server's own tmux binary, for the exit guard's wait-for (TmuxFeatures.exitGuard). */
  private tmuxBin = 'tmux';
  private readonly exitMarkers = new ExitMarkers();
  /** Control-channel command lines sent (the benchmark reads it). */
  linesSent = 0;

  constructor(private readonly opts: SupervisorOptions) {
    super();
    this.clock = opts.clock ?? (opts.now ? { ...systemClock, now: opts.now } : systemClock);
    this.socketPath = opts.socketPath ?? serverFiles(opts.tmuxSocket).socket;
    this.control = opts.control ?? tmuxControlServer(opts.tmuxSocket);
    // A light goes out at the end of the turn that changed it, or, within 250 ms of the last
    // flush, at the clock's next 250 ms step: about 4 redraws a second at most.
    this.lights = new LightsWriter((cmds, done) => this.sendLine(cmds, (r) => done(r.map((x) => x.ok))), 0, 250, undefined, this.clock);
    this.statusKeeper = new StatusKeeper({ run: (args) => this.run(command(args[0]!, ...args.slice(1))), clock: this.clock, log: opts.log, anchor: () => this.homeWindow });
    this.on('subscription', (name) => name === STATUS_SUBSCRIPTION && this.statusKeeper.changed());
    const agents = (): Iterable<WatchedAgent> => this.agents.values();
    this.notifier = new Notifier(opts.notify ?? { bell: true, osc: true, desktop: true }, (m) => opts.log('info', m));
    this.messages = new Messenger({
      sendLine: (cmds, done) => this.sendLine(cmds, done),
      log: opts.log,
      store: new QueueStore(path.join(opts.stateDir, 'queues'), { now: () => this.clock.now() }),
      clock: this.clock,
      changed: (a) => {
        this.paint(a);
        this.emit('change', a);
        // a queue that stalls while its window is on screen resumes after the usual second
        if (this.messages.queue(a).stalledAt !== null) this.views.schedule();
      },
      receipt: (a, r) => this.emit('receipt', a, r),
    });
    this.conflicts = new ConflictWatch({
      clock: this.clock,
      log: opts.log,
      records: () => new WorktreeRegistry(opts.stateDir).list(),
      changed: (paths) => {
        for (const a of this.agents.values()) {
          if (a.worktree && paths.includes(a.worktree)) {
            this.paint(a);
            this.emit('change', a);
          }
        }
      },
    });
    this.views = new ViewWatcher({
      agents,
      messages: this.messages,
      run: (cmd) => this.run(cmd),
      seen: (a) => a.seen(),
      focused: opts.lifecycle?.wakeOnFocus
        ? {
            wanted: (a) => a.hibernation !== null,
            shown: (a) => {
              // hibernated while shown: only a window selected later wakes it
              if (this.clock.now() - (a.hibernation?.since ?? 0) < 2 * SEEN_AFTER_MS) return;
              void this.wake(a, { why: 'its window was selected' }).catch((err: Error) => this.log('warn', `${a.name}: wake on focus failed: ${err.message}`));
            },
          }
        : undefined,
      stopping: () => this.stopping,
      clock: this.clock,
      log: opts.log,
    });
    this.active = new ActiveWindows({
      run: (cmd) => this.run(cmd),
      changed: (list) => this.emit('active', list),
      log: (m) => opts.log('warn', m),
    });
    this.saver = new SessionSaver(new SessionStore(path.join(opts.stateDir, 'sessions'), { log: opts.log }), {
      agents,
      messages: this.messages,
      sendLine: (cmds, done) => this.sendLine(cmds, done),
      active: () => this.ready && !this.stopping,
      stopping: () => this.stopping,
      tmuxSocket: opts.tmuxSocket,
      clock: this.clock,
      log: opts.log,
    });
    this.on('change', (a) => this.saver.changed(a, this.agents.get(a.paneId) === a));
    this.statusFiles = new AgentStatusWatcher({
      clock: this.clock,
      log: opts.log,
      deliver: (pane, status) => this.agents.get(pane)?.agentStatus(status),
    });
    // a window that becomes (or stops being) a Claude one, restarts or goes: its status file follows
    this.on('change', (a) => {
      if (this.agents.get(a.paneId) === a) this.statusFiles.track(a);
      else this.statusFiles.forget(a.paneId, false);
    });
    this.host = {
      clock: this.clock,
      log: opts.log,
      manifest: (agent) => this.opts.manifests.get(agent),
      send: (cmds, done) => this.sendLine(cmds, done),
      // a program a manifest of the user's own names is identified like an agent (docs/identify.md)
      probe: (pid) => (this.opts.probe ? this.opts.probe(pid) : probePane(pid, { names: this.opts.manifests.userPrograms() })),
      settled: (a, u) => this.settled(a, u),
      changed: (a) => this.emit('change', a),
      rescan: () => this.scheduleScan(),
      releaseExitGuard: (a) => this.releaseExitGuard(a.paneId),
    };
  }

  get log(): Logger {
    return this.opts.log;
  }

  async start(): Promise<void> {
    await this.connect();
    this.sweepLater();
  }

  private sweepTimer: Timer | null = null;

  /** [agents] hibernate_after: how often the windows are looked over (a quarter of it, 1 s to a minute). */
  private sweepLater(): void {
    const after = this.opts.lifecycle?.hibernateAfterMs;
    if (!after || this.stopping) return;
    this.sweepTimer = this.clock.after(Math.min(60_000, Math.max(1000, Math.round(after / 4))), () => {
      this.sweepTimer = null;
      void this.sweep(after).finally(() => this.sweepLater());
    });
  }

  /** Hibernates, one after the other, every window that has waited for nobody `after` ms or more. */
  private async sweep(after: number): Promise<void> {
    const now = this.clock.now();
    for (const a of [...this.agents.values()]) {
      if (this.stopping) return;
      if ((a.state !== 'idle' && a.state !== 'done') || now - a.stateSince < after || this.whyNotHibernate(a) !== null) continue;
      if (this.agents.get(a.paneId) !== a) continue;
      await this.hibernate(a).catch((err: Error) => this.log('warn', `${a.name}: hibernate_after: ${err.message}`));
    }
  }

  /** Waits, 2 s at most, until tmux lists these control clients of ours (the output keeper). */
  private async keeperAttached(pids: number[]): Promise<void> {
    if (!pids.length) return;
    const listed = async (): Promise<boolean> => {
      const clients = (await this.run(command('list-clients', '-F', '#{client_pid}'))).split('\n').map(Number);
      return pids.every((p) => clients.includes(p));
    };
    if (!(await until(this.clock, listed, 2000, 10))) this.log('warn', `the output keeper (pid ${pids.join(', ')}) is not attached after 2 s; going on`);
  }

  private async connect(): Promise<void> {
    // the control clients of a supervisor that died go before ours come: one that detaches while
    // ours are still identifying themselves would crash tmux < 3.7 (src/supervisor/stale.ts)
    const clients = this.control.clients?.bind(this.control);
    if (clients) await endStaleClients({ list: clients, me: { name: '', pid: -1 }, clock: this.clock, log: this.log });
    const channel = await this.control.open();
    this.channel = channel;
    // subscriptions are the client's: the new one has none yet (the scan below makes them)
    this.windowSubs.clear();
    this.paneEntries.clear();
    channel.on('output', (pane, data) => this.onOutput(pane, data));
    channel.on('notification', (name, args) => this.onNotification(name, args));
    channel.on('exit', (reason) => void this.onClientExit(channel, reason));

    // our backlog is dropped (and the screen taken again) once 2 s old: with the output keeper
    // attached, tmux reads agents on however far behind we are (src/tmux/keeper.ts)
    await this.run(`refresh-client -f pause-after=${PAUSE_AFTER_S}`);
    const me = (await this.run(command('display', '-p', '#{client_name}\t#{client_pid}\t#{version}\t#{pid}'))).split('\t');
    this.clientName = me[0] ?? '';
    this.clientPid = Number(me[1]);
    this.tmuxVersion = me[2] ?? '';
    this.tmux = tmuxFeatures(this.tmuxVersion);
    this.serverPid = Number(me[3]) || null;
    this.tmuxBin = serverBinary(Number(me[3])) ?? 'tmux';
    // tmux 3.2 sizes windows by an unsized control client too (80x24): be ignored while a user's
    // client is attached, and have _nerdr's size while none is
    if (this.tmux.controlClientSized) await this.runAll(['refresh-client -f ignore-size', 'refresh-client -C 160x48']);
    // the output keeper is its own control client, started once ours attached: nothing that makes
    // tmux notify every control client (a client detaching, below) runs before it is attached too
    await this.keeperAttached(channel.companions ?? []);
    await endStaleClients({ list: (f) => this.run(command('list-clients', '-F', f)), me: { name: this.clientName, pid: this.clientPid, companions: channel.companions ?? [] }, clock: this.clock, log: this.log });
    await this.runAll([
      command('set-option', '-t', `=${HIDDEN_SESSION}:`, 'destroy-unattached', 'off'),
      command('set-option', '-t', `=${HIDDEN_SESSION}:`, 'detach-on-destroy', 'on'),
      // tmux 3.2a sizes a detached session by default-size (80x24), not new-session's -x/-y:
      // agent windows are made here, so they would start at 80 columns
      command('set-option', '-t', `=${HIDDEN_SESSION}:`, 'default-size', '160x48'),
    ]);
    await this.run(
      command('set-hook', '-t', `=${HIDDEN_SESSION}:`, 'client-attached', "if-shell -F '#{client_control_mode}' '' 'switch-client -n'"),
    );
    // the lights' offline look shows at once when this client goes, not at the next status-interval
    await this.run(detachRedrawHook(HIDDEN_SESSION));
    await this.findHome();
    if (this.opts.installLights) {
      await this.installLights();
      await this.statusKeeper.subscribe();
    }
    this.emit('anchored', this.homeWindow);
    // the user's @nerdr-glyph-* / @nerdr-color-* choices (the TPM plugin documents them)
    const options = await this.run(command('show-options', '-g')).catch(() => '');
    const chosen = parseShowOptions(options);
    this.looks = { looks: looksFromOptions(chosen), bg: lightBgFrom(chosen) };
    this.lights.setLooks(this.looks.looks, this.looks.bg, offlineLookFrom(chosen));
    // ready once the windows are known and their lights painted from what the last supervisor
    // kept (@nerdr_facts); their screens are read right after. Read before, ten windows' first
    // looks (their mirrors' parse, the manifests' first evaluation) were most of a revival's
    // wait on a loaded machine (docs/performance.md, "Revival"); a read of a screen not taken
    // yet waits for it (nerdr.read)
    const looks: WatchedAgent[] = [];
    this.firstLooks = looks;
    try {
      await this.scan();
    } finally {
      this.firstLooks = null;
    }
    this.lights.invalidate();
    await this.runAll([
      command('set-option', '-g', '@nerdr_supervisor_pid', String(process.pid)),
      command('set-option', '-g', '@nerdr_client', this.clientName),
    ]);
    this.ready = true;
    this.log('info', `connected as ${this.clientName} (pid ${this.clientPid}) to ${this.tmuxVersion}; ${this.agents.size} agent(s)`);
    for (const a of looks) if (this.agents.get(a.paneId) === a) a.snapshot();
  }

  /** While the first scan runs (connect()): the windows it found, whose screens are read once the supervisor is ready. */
  private firstLooks: WatchedAgent[] | null = null;

  async installLights(): Promise<void> {
    const changed = await installLights((args) => this.run(command(args[0]!, ...args.slice(1))));
    for (const option of changed) this.log('info', `lights added to ${option}`);
  }

  // ---- discovery ---------------------------------------------------------------------

  private scheduleScan(): void {
    if (this.scanTimer || this.stopping) return;
    this.scanTimer = this.clock.after(30, () => {
      this.scanTimer = null;
      void this.scan().catch((err: Error) => this.log('warn', `scan failed: ${err.message}`));
    });
  }

  /**
   * Lists every pane and takes the list in order with the lines after it (inOrder): an older
   * list must not undo a `%subscription-changed` that said a pane died (a window stuck
   * "restarted" after the supervisor was stopped while its program exited,
   * test/live/exit-guard.test.ts).
   */
  private scan(): Promise<void> {
    const cmd = command('list-panes', '-a', '-F', LIST_PANES_FORMAT);
    return this.inOrder([cmd], ([r]) => this.applyScan(okText(cmd, r)));
  }

  /** A scan's list: windows found, changed or gone. */
  private applyScan(text: string): void {
    const found = parsePaneList(text);
    const seen = new Set<string>();
    const links: string[] = [];
    for (const p of found) {
      seen.add(p.paneId);
      const known = this.agents.get(p.paneId);
      if (known) {
        known.found(p);
        continue;
      }
      const a = new WatchedAgent(p, this.host);
      this.agents.set(p.paneId, a);
      this.log('info', `watching ${p.agent} ${p.windowId} ${p.paneId} "${p.name}"`);
      a.begin({ fresh: this.fresh.delete(p.paneId), facts: p.facts, look: this.firstLooks === null });
      this.firstLooks?.push(a);
      if (!p.inHidden) links.push(command('link-window', '-d', '-s', p.windowId, '-t', `=${HIDDEN_SESSION}:`));
      // a new window is a change even when its state stays unknown (a `--cmd` window): it is saved
      this.emit('change', a);
    }
    for (const line of links) this.sendLine([line], () => undefined);
    for (const [pane, a] of this.agents) {
      if (seen.has(pane)) continue;
      this.forget(a);
      this.log('info', `window ${a.windowId} (${a.name}) is gone`);
    }
    // the subscription of each window with a watched pane, on this client (pane-watch.ts): new
    // windows', and after a reconnect every window's; a window left without one is dropped
    const windows = new Set([...this.agents.values()].map((a) => a.windowId));
    const args = [
      ...[...windows].filter((w) => !this.windowSubs.has(w)).flatMap((w) => ['-B', windowSubscriptionSpec(w)]),
      ...[...this.windowSubs].filter((w) => !windows.has(w)).flatMap((w) => ['-B', windowSubscriptionName(w)]),
    ];
    if (args.length > 0 && this.channel && !this.channel.closed) {
      this.windowSubs.clear();
      for (const w of windows) this.windowSubs.add(w);
      this.sendLine([command('refresh-client', ...args)], () => undefined);
    }
  }

  /** The windows subscribed to on the current control client (`nerdr-p@<id>`). */
  private readonly windowSubs = new Set<string>();
  /** Each pane's entry in its window's last value, to pass on only what changed (tmux sends the window's panes together). */
  private readonly paneEntries = new Map<string, string>();

  /**
   * `_nerdr`'s own window (`@3`), made again when missing: the client's status and focus
   * subscriptions are made on it rather than on the session, which tmux 3.2a and 3.3a may read
   * after it is gone (pane-watch.ts). `this.homeWindow` is '' until the first client found it.
   */
  homeWindow = '';

  private async findHome(): Promise<void> {
    // listed, not `display -t`, which answers with another window when the one named is missing
    const windows = await this.run(command('list-windows', '-t', `=${HIDDEN_SESSION}`, '-F', '#{window_id} #{window_name}'));
    const found = windows.split('\n').find((l) => l.slice(l.indexOf(' ') + 1) === HOME_WINDOW)?.split(' ')[0];
    this.homeWindow = found || (await this.run(command('new-window', '-d', '-P', '-F', '#{window_id}', '-t', `=${HIDDEN_SESSION}:`, '-n', HOME_WINDOW, ...HOME_PROGRAM))).trim();
  }

  /** `_nerdr`'s own window closed (by hand: nerdr never closes it): made again, and what is anchored on it. */
  private async rehome(): Promise<void> {
    await this.findHome();
    if (this.opts.installLights) await this.statusKeeper.subscribe();
    this.emit('anchored', this.homeWindow);
  }

  private forget(a: WatchedAgent): void {
    // a hibernated window closed: its kept screen goes with it (a restore without it resumes the agent)
    if (a.hibernation && !this.stopping) rmSync(a.hibernation.screen, { force: true });
    a.dispose();
    this.messages.forget(a);
    this.notifier.forget(a.windowId);
    this.agents.delete(a.paneId);
    this.paneEntries.delete(a.paneId);
    this.exitMarkers.forget(a.paneId);
    this.lights.remove(a.windowId);
    this.emit('change', a);
  }

  // ---- routing -------------------------------------------------------------------------

  private onOutput(pane: string, data: Buffer): void {
    // a window's first output may come before the scan that watches it: the marker is looked
    // for in every pane's output
    if (this.tmux.exitGuard && this.exitMarkers.feed(pane, data) && (this.agents.get(pane)?.exitMarker() ?? true)) this.releaseExitGuard(pane);
    this.agents.get(pane)?.output(data);
  }

  /** Lets the pane's exit guard (create.ts) end: the supervisor has the program's last output. */
  private releaseExitGuard(pane: string): void {
    if (this.tmux.exitGuard) this.sendLine([command('wait-for', '-S', exitChannel(pane))], () => undefined);
  }

  private onNotification(name: string, args: string): void {
    switch (name) {
      case 'pause': {
        // tmux dropped this pane's output for us (we fell behind by pause-after): the window
        // continues it and takes the screen again, unless the pause is its own (a flood's, a
        // snapshot's first step); a pane we do not know yet is continued by its first seed
        const a = this.agents.get(args.trim());
        if (a?.paused()) this.log('info', `${a.name} (${a.paneId}): tmux paused its output (the supervisor fell behind); continued and re-seeded`);
        break;
      }
      case 'layout-change': {
        const [win, layout = ''] = args.split(' ');
        for (const [pane, size] of parseLayoutSizes(layout)) {
          const a = this.agents.get(pane);
          if (a && a.windowId === win) a.resized(size.cols, size.rows);
        }
        break;
      }
      case 'subscription-changed':
        this.onSubscription(args);
        break;
      case 'window-pane-changed':
        // the active pane's folder is what a window without an agent is reviewed by
        this.active.notify();
        break;
      case 'session-window-changed':
        this.active.notify();
        this.views.schedule();
        break;
      case 'client-session-changed':
      case 'client-detached':
        this.views.schedule();
        break;
      case 'pane-mode-changed': {
        const a = this.agents.get(args.trim());
        if (a) this.refreshMode(a);
        this.views.schedule();
        break;
      }
      case 'window-close':
      case 'unlinked-window-close':
        if (args.trim() === this.homeWindow && this.ready && !this.stopping) void this.rehome().catch((err: Error) => this.log('warn', `could not make ${HIDDEN_SESSION}'s own window again: ${err.message}`));
      // falls through
      case 'window-add':
      case 'unlinked-window-add':
      case 'window-renamed':
      case 'unlinked-window-renamed':
      case 'sessions-changed':
      case 'session-renamed':
        this.active.notify();
        this.scheduleScan();
        break;
      case 'config-error':
        // tmux hands its pending configuration errors (a bad line in tmux.conf, a hook's command
        // that failed with no client) to the first client that attaches: said here, not lost
        this.log('warn', `tmux reported a configuration error: ${stripControl(args)}`);
        break;
      default:
        break;
    }
  }

  private onSubscription(args: string): void {
    const c = parseSubscriptionChange(args);
    if (c?.kind === 'other') this.emit('subscription', c.name, c.value);
    else if (c) {
      for (const { raw, change } of c.panes) {
        const a = this.agents.get(change.pane);
        if (!a || this.paneEntries.get(change.pane) === raw) continue;
        this.paneEntries.set(change.pane, raw);
        a.paneChanged(change.dead, change.status, change.inMode, change.command);
      }
    }
  }

  // ---- state -------------------------------------------------------------------------

  /** A window took its arbiter's answer: the light, the saved facts, the queue, a notification. */
  private settled(a: WatchedAgent, u: { stateChanged: boolean; change: boolean; limitLapsed?: { words: string; resetAt: number }; restored?: boolean }): void {
    if (u.limitLapsed) this.limitReset(a, u.limitLapsed);
    if (u.stateChanged) {
      if (a.state === 'done') this.views.schedule();
      // a turn ended: its files may have changed, and with them what its branch conflicts with
      if (a.worktree && (a.state === 'done' || a.state === 'idle')) this.conflicts.turnEnded(a.worktree);
      // a state taken back from the last supervisor was announced by it, if at all: a revival
      // rang every done window's bell again
      if ((a.state === 'done' || a.state === 'blocked') && !u.restored) this.announce(a);
      this.messages.stateChanged(a);
    } else {
      // the same state, but a message may wait for this look: one queued while the screen was
      // being taken (a first look, a resize) got nothing, and nothing else would try again
      this.messages.tryDeliver(a);
    }
    if (u.change) this.emit('change', a);
    this.paint(a);
    this.lights.setOption(a.windowId, '@nerdr_facts', factsJson(a));
  }

  /**
   * An agent's usage limit reset: with `[agents] on_limit = "resume"` its message goes first in
   * the queue (before what was queued), typed in as any message is: at the prompt, never into a
   * dialog (docs/lifecycle.md).
   */
  private limitReset(a: WatchedAgent, l: { words: string; resetAt: number }): void {
    const { onLimit, message } = (this.opts.onLimit ?? configOnLimit)();
    this.log('info', `${a.name}: its usage limit reset (${new Date(l.resetAt).toISOString()})${onLimit === 'resume' ? `: "${message}" is typed in first` : ''}`);
    if (onLimit !== 'resume' || a.dead) return;
    // queued once tmux holds the window's facts without the limit: a supervisor that dies in
    // between loses the message rather than queueing it a second time (typed in at most once)
    const release = this.messages.hold(a); // what was queued waits for it
    this.lights.setOption(a.windowId, '@nerdr_facts', factsJson(a));
    this.lights.whenApplied(a.windowId, '@nerdr_facts', (ok) => {
      if (!ok || this.agents.get(a.paneId) !== a || a.dead) {
        this.log('warn', `${a.name}: "${message}" was not queued after its usage limit: the window's facts could not be saved`);
        return release();
      }
      // the agent's own dialog about the limit (Claude's "Stop and wait for limit to reset") is
      // closed with its cancel key first: it asks nothing once the limit has reset
      const keys = a.limitDialogKeys();
      if (keys) {
        this.log('info', `${a.name}: closing its dialog about the limit (${keys.join(' ')})`);
        this.sendLine(keys.map((k) => command('send-keys', '-t', a.paneId, k)), () => undefined);
      }
      try {
        this.messages.enqueueFirst(a, message);
      } catch (err) {
        this.log('error', `${a.name}: the message after its usage limit was not queued: ${(err as Error).message}`);
      }
      release();
    });
  }

  /**
   * A hook event from the spool, applied at most once (`apply` is not called for an event this
   * window's facts already hold). Resolves true once tmux has the window's facts with the event
   * in them, when its file may go; false when the window went first.
   */
  applySpooled(a: WatchedAgent, name: string, apply: () => void): Promise<boolean> {
    if (!a.spoolApplied.has(name)) {
      a.spoolApplied.add(name);
      apply();
    }
    this.lights.setOption(a.windowId, '@nerdr_facts', factsJson(a));
    return new Promise((resolve) => this.lights.whenApplied(a.windowId, '@nerdr_facts', resolve));
  }

  /** The spool deleted these files: the window's facts need not name them any more. */
  spoolDeleted(a: WatchedAgent, names: string[]): void {
    for (const n of names) a.spoolApplied.delete(n);
    if (this.agents.get(a.paneId) === a) this.lights.setOption(a.windowId, '@nerdr_facts', factsJson(a));
  }

  private paint(a: WatchedAgent): void {
    const conflict = this.conflicts.mark(a.worktree) !== null ? ' ⚠' : '';
    this.lights.set(a.windowId, { state: a.state, kind: a.background ? 'background' : a.state, suffix: this.messages.suffix(a) + conflict });
  }

  // ---- notifications ---------------------------------------------------------------------

  /** Tells the user an agent needs them, unless a client shows its window. */
  private announce(a: WatchedAgent): void {
    const key = `${a.state}@${a.stateSince}`;
    const passthroughKnown = this.tmux.passthroughOption;
    this.sendLine(
      [
        command('display', '-p', '-t', a.paneId, '#{pane_tty}'),
        command('list-clients', '-F', CLIENT_VIEWS_FORMAT),
      ],
      ([tty, clients]) => {
        if (!tty?.ok || !clients?.ok || this.agents.get(a.paneId) !== a) return;
        const views = parseClientViews(clients.lines.map((l) => l.toString()), passthroughKnown);
        const what = a.state === 'blocked' ? 'needs you' : 'finished';
        this.notifier.notify({ windowId: a.windowId, paneTty: tty.lines.join('').trim(), title: `nerdr: ${a.name}`, body: `${a.agent} ${what}` }, key, views);
      },
    );
  }

  private refreshMode(a: WatchedAgent): void {
    this.sendLine([command('display', '-p', '-t', a.paneId, '#{pane_in_mode}')], ([r]) => {
      if (r?.ok) a.modeChanged(r.lines.map((l) => l.toString()).join('').trim() === '1');
      if (!a.inMode) this.messages.tryDeliver(a);
    });
  }

  /** A hook event from `nerdr hook <agent>`, already authenticated to this window. */
  onHook(a: WatchedAgent, agent: string, event: unknown, hint?: string): void {
    const mapped = mapHookPayload(agent, event, hint);
    if (!mapped) return;
    const fact = refineFact(mapped);
    a.hookFact(fact);
    if (fact.kind === 'prompt-submit' || fact.kind === 'turn-start') this.messages.promptSubmitted(a);
  }

  /** A note for `ls`, kept on the window so that it outlives the supervisor. */
  setNote(a: WatchedAgent, note: string): void {
    a.setNote(note);
    this.log('info', `${a.name}: ${note}`);
    this.lights.setOption(a.windowId, '@nerdr_note', note);
    this.emit('change', a);
  }

  /**
   * A herdr report (pane.report_agent …) for this window; the socket checked secret and seq.
   * Throws the RpcError herdr would answer when the report is refused (metadata_token_limit).
   */
  onReport(a: WatchedAgent, r: Report<WatchedAgent>): void {
    const u: ArbiterUpdate | null = applyHerdrReport(a.arbiter, r);
    if (!u) return;
    a.apply(u);
    const err = reportError(u);
    if (err) throw err;
  }

  /** The watched window whose secret this is (NERDR_TAB / HERDR_PANE_ID), by the hash it keeps; else null. */
  windowBySecret(secret: string): WatchedAgent | null {
    const h = hashSecret(secret);
    for (const a of this.agents.values()) if (a.secretHash === h) return a;
    return null;
  }

  /** Manifests changed on disk: every screen is judged again by the new rules. */
  reevaluateAll(): void {
    for (const a of this.agents.values()) a.scheduleEval();
  }

  // ---- intents: what the socket's methods (and restore) ask for --------------------------------

  /**
   * Creates a window in `spec.session`: made in _nerdr (so no byte of its output is missed),
   * tagged, kept on exit, then linked into the user's session without selecting anything there.
   * A watched window gets a new secret in its environment and is watched before this resolves,
   * its agent starting with the startup grace. Throws RpcError tmux_error when tmux refuses.
   */
  async createWindow(spec: WindowSpec): Promise<CreatedWindow> {
    const secret = newSecret();
    const id = newAgentId();
    // the caller's environment first; the window's own nerdr variables and the launch's on top
    const caller = callerEnvironment(spec.callerEnv);
    const env = spec.watched ? { ...caller, ...agentEnv(spec.agent, secret, this.socketPath), ...spec.env } : caller;
    const cmds = newWindowCommands({
      index: spec.index,
      userArgs: spec.userArgs,
      agent: spec.agent,
      // a line break in a name would split tmux's -F rows: names lose their control characters
      name: stripControl(spec.name) || spec.agent,
      cwd: spec.cwd,
      session: spec.session,
      argv: spec.argv,
      env,
      watched: spec.watched,
      id,
      secretHash: hashSecret(secret),
      worktree: spec.worktree ?? null,
      setup: spec.setup ?? null,
      lineage: spec.lineage ?? [],
      idleAfterMs: spec.idleAfterMs ?? null,
      // a terminal is not in _nerdr, so no marker of its would reach the supervisor
      exitGuard: this.tmux.exitGuard && spec.watched ? this.tmuxBin : null,
    });
    const replies = await new Promise<Reply[]>((resolve) => this.sendLine(cmds, resolve));
    const failed = replies.find((r) => !r.ok && !r.skipped);
    if (failed) throw new RpcError('tmux_error', `tmux refused to create the window: ${replyText(failed)}`);
    const [windowId = '', paneId = ''] = replyText(replies[0]!).trim().split(' ');
    let watched: WatchedAgent | null = null;
    if (spec.watched) {
      this.fresh.add(paneId);
      await this.scan();
      watched = this.agents.get(paneId) ?? null;
      if (watched && spec.conversation) this.setConversation(watched, spec.conversation.id, spec.conversation.from);
      if (watched && spec.note) this.setNote(watched, spec.note);
    }
    return { window: windowId, pane: paneId, id, agent: spec.agent, watched };
  }

  /**
   * Starts a new program in a watched window's pane (same window, options and pane id), with a
   * new secret: a new process, so the old one's reported conversation, state and metadata go
   * with it, and waits tied to the old one end (its generation moves on).
   */
  async respawn(a: WatchedAgent, spec: RespawnSpec): Promise<void> {
    const secret = newSecret();
    const env = { ...callerEnvironment(spec.callerEnv), ...agentEnv(a.agent, secret, this.socketPath), ...spec.env };
    const cmds = [
      ...respawnCommands(a.paneId, a.windowId, a.cwd, spec.argv, env, hashSecret(secret), this.tmux.exitGuard ? this.tmuxBin : null),
      command('display', '-p', '-t', a.paneId, '#{pane_pid}'),
    ];
    // Marked alive in the reply's callback (inOrder): a program that dies at once says so in a
    // later line, which must not be undone. Alive here, so the dead → alive change tmux shows
    // later is no second start; the new process's pid is what the prober, the spool's start
    // check and the status file look at.
    await this.inOrder(cmds, (replies) => {
      throwIfRefused(cmds.slice(0, -1), replies);
      const shown = replies[cmds.length - 1];
      a.respawned(hashSecret(secret), (shown?.ok && Number(replyText(shown).trim())) || 0);
    });
    if (spec.conversationId) this.setConversation(a, spec.conversationId, 'launch');
    if (spec.note) this.setNote(a, spec.note);
  }

  /** The conversation a launch resumes (`--resume ID`), or one guessed for it; hooks may replace it. */
  setConversation(a: WatchedAgent, id: string, from: 'launch' | 'guess'): void {
    a.setConversation(id, from);
  }

  /** Closes a window (`nerdr stop`); the scan that follows forgets it. */
  async closeWindow(a: WatchedAgent): Promise<void> {
    await this.run(command('kill-window', '-t', a.windowId));
  }

  // ---- hibernation (docs/lifecycle.md, src/supervisor/hibernate.ts) ----------------------------

  /** Hibernations under way (a wake waits for its pane's to end first). */
  private readonly hibernating = new Map<string, Promise<unknown>>();
  private readonly waking = new Map<string, Promise<WakeResult>>();

  /** Why this window may not hibernate now, or null. */
  whyNotHibernate(a: WatchedAgent): string | null {
    if (this.hibernating.has(a.paneId)) return 'it is being hibernated already';
    if (this.waking.has(a.paneId)) return 'it is waking';
    const row = agentRow(a, this.messages, this.conflicts);
    return whyNotHibernate({
      state: a.state,
      dead: a.dead,
      seen: row.seen,
      queued: row.queue,
      conversationId: row.conversationId,
      subagents: row.subagents,
      backgroundTasks: row.backgroundTasks,
      background: row.background,
      resumable: integrationFor(a.agent)?.resume != null,
    });
  }

  /**
   * Stops a window's agent to wake it later in its conversation: its last screen is kept, its
   * state is `hibernated` before its program ends (no `exited`), its whole process tree gets
   * SIGTERM (its own clean exit) and, after HIBERNATE_TERM_MS, SIGKILL; then a tiny program
   * shows the kept screen in the same pane. Throws RpcError not_hibernatable saying why not.
   */
  async hibernate(a: WatchedAgent): Promise<Hibernation> {
    const why = this.whyNotHibernate(a);
    if (why) {
      throw new RpcError('not_hibernatable', `${a.name} (${a.windowId}) cannot hibernate now: ${why}`, false, '`nerdr ls` shows its state; an idle agent, or one done and seen, with a known conversation and nothing queued hibernates');
    }
    const conversationId = agentRow(a, this.messages, this.conflicts).conversationId!;
    let done!: () => void;
    this.hibernating.set(a.paneId, new Promise<void>((resolve) => (done = resolve)));
    try {
      const captured = await this.run(command('capture-pane', '-e', '-p', '-t', a.paneId));
      const dir = path.join(this.opts.stateDir, 'hibernated');
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const screen = path.join(dir, `${a.id}.screen`);
      writeFileAtomic(screen, keptScreen(captured));
      const tree = processTree(await (this.opts.processes ?? listProcesses)(), a.panePid);
      const h: Hibernation = { since: this.clock.now(), conversationId, screen, rssKb: tree.length > 0 ? treeRssKb(tree) : null };
      // on the window first: a supervisor that dies from here on finds it hibernated
      await this.run(command('set-option', '-w', '-t', a.windowId, HIBERNATED_OPTION, hibernationJson(h)));
      a.hibernate(h);
      await this.endTree(tree.map((p) => p.pid));
      await this.run(command('respawn-pane', '-k', '-t', a.paneId, '--', ...hibernatedArgv(screen, stripControl(a.name))));
      this.log('info', `${a.name} (${a.windowId}) hibernated in conversation ${conversationId}; its processes held ${h.rssKb ?? '?'} kB`);
      this.emit('change', a);
      // a message queued while it was being stopped: it wakes for it (once this hibernation ends)
      if (this.messages.queue(a).messages.length > 0) {
        void this.wake(a, { why: 'a message came while it was being hibernated' }).catch((err: Error) => this.log('warn', `${a.name}: wake for a message failed: ${err.message}`));
      }
      return h;
    } finally {
      this.hibernating.delete(a.paneId);
      done();
    }
  }

  /** A window made to show a hibernated agent's kept screen (restore): hibernated, on the window too. */
  async markHibernated(a: WatchedAgent, h: Hibernation): Promise<void> {
    await this.run(command('set-option', '-w', '-t', a.windowId, HIBERNATED_OPTION, hibernationJson(h)));
    a.hibernate(h);
    this.emit('change', a);
  }

  /** SIGTERM to every process, SIGKILL to what is left after HIBERNATE_TERM_MS. */
  private async endTree(pids: number[]): Promise<void> {
    const kill = this.opts.kill ?? ((pid: number, sig: NodeJS.Signals | 0) => process.kill(pid, sig));
    const alive = (pid: number): boolean => {
      try {
        kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const send = (pid: number, sig: NodeJS.Signals): void => {
      try {
        kill(pid, sig);
      } catch {
        // gone already
      }
    };
    for (const pid of pids) send(pid, 'SIGTERM');
    await until(this.clock, () => !pids.some(alive), HIBERNATE_TERM_MS, 50);
    const left = pids.filter(alive);
    if (left.length === 0) return;
    this.log('warn', `hibernate: ${left.length} process(es) outlived SIGTERM by ${HIBERNATE_TERM_MS / 1000} s: SIGKILL (${left.join(' ')})`);
    for (const pid of left) send(pid, 'SIGKILL');
  }

  /**
   * Wakes a hibernated window: its agent resumes its conversation in the same pane, with nerdr's
   * wiring, checked as `nerdr restore` checks a resume (a resume that fails at once becomes a new
   * conversation, with a note). One wake at a time per window: a second call gets the first's.
   */
  wake(a: WatchedAgent, opts: { why: string; callerEnv?: Record<string, unknown> }): Promise<WakeResult> {
    const going = this.waking.get(a.paneId);
    if (going) return going;
    // a message that comes while the agent is being stopped wakes it once it is stopped
    const stopping = this.hibernating.get(a.paneId);
    const p = (stopping ? stopping.then(() => this.startWake(a, opts)) : this.startWake(a, opts)).finally(() => this.waking.delete(a.paneId));
    this.waking.set(a.paneId, p);
    return p;
  }

  private startWake(a: WatchedAgent, opts: { why: string; callerEnv?: Record<string, unknown> }): Promise<WakeResult> {
    const h = a.hibernation;
    if (!h) return Promise.reject(new RpcError('not_hibernated', `${a.name} (${a.windowId}) is not hibernated (it is ${a.state})`, false, '`nerdr ls` shows which windows are hibernated'));
    return this.doWake(a, h, opts);
  }

  private async doWake(a: WatchedAgent, h: Hibernation, opts: { why: string; callerEnv?: Record<string, unknown> }): Promise<WakeResult> {
    const resume = resumeArgs(a.agent, h.conversationId);
    if (!resume) throw new RpcError('not_hibernated', `${a.agent} cannot resume a conversation by id`, false, 'close the window (`nerdr stop`) and start a new one');
    const callerEnv = opts.callerEnv ?? { ...process.env };
    const fresh = stripResumeArgs(a.agent, a.args);
    const plan = await (this.opts.plan ?? planLaunch)(a.agent, [...resume, ...fresh], a.cwd, true, (m) => this.log('warn', `wake ${a.name}: ${m}`));
    this.log('info', `${a.name} (${a.windowId}) wakes (${opts.why}) in conversation ${h.conversationId}`);
    a.woke();
    await this.respawn(a, { argv: plan.argv, env: plan.env, callerEnv, conversationId: h.conversationId });
    await this.run(command('set-option', '-w', '-u', '-t', a.windowId, HIBERNATED_OPTION)).catch(() => undefined);
    rmSync(h.screen, { force: true });
    this.emit('change', a);
    const restoreView = {
      clock: this.clock,
      agent: (pane: string) => this.agents.get(pane),
      onChange: (fn: () => void) => {
        this.on('change', fn);
        return () => void this.off('change', fn);
      },
      screen: async (x: WatchedAgent) => this.run(command('capture-pane', '-p', '-J', '-S', '-200', '-t', x.paneId)).catch(() => x.mirror?.renderText() ?? ''),
    };
    const failed = await resumeFailed(restoreView, a.agent, a.paneId);
    if (!failed) return { conversationId: h.conversationId, argv: plan.argv, resumeFailed: null };
    const note = `resume of ${h.conversationId} failed on waking (${failed}): started a new conversation`;
    const again = await (this.opts.plan ?? planLaunch)(a.agent, fresh, a.cwd, true, (m) => this.log('warn', `wake ${a.name}: ${m}`));
    await this.respawn(a, { argv: again.argv, env: again.env, callerEnv, conversationId: again.conversationId, note });
    this.log('warn', `${a.name}: ${note}`);
    return { conversationId: again.conversationId ?? '', argv: again.argv, resumeFailed: failed };
  }

  // ---- the control channel -------------------------------------------------------------

  sendLine(commands: string[], done: (replies: Reply[]) => void): void {
    if (!this.channel || this.channel.closed) {
      done(commands.map(() => ({ ok: false, skipped: true, lines: [] })));
      return;
    }
    this.linesSent++;
    this.channel.send(commands, done);
  }

  /** Text the status bar shows after the agents' summary (the fleet's, src/fleet/fleet.ts). */
  setSummarySuffix(suffix: string): void {
    this.lights.setSummarySuffix(suffix);
  }

  /** The user's looks (@nerdr-glyph-*, @nerdr-color-*), for the fleet's summary. */
  looks: { looks: ReturnType<typeof looksFromOptions>; bg: string } | null = null;

  run(cmd: string): Promise<string> {
    return this.inOrder([cmd], ([r]) => okText(cmd, r));
  }

  runAll(cmds: string[]): Promise<Reply[]> {
    return this.inOrder(cmds, (replies) => {
      throwIfRefused(cmds, replies);
      return replies;
    });
  }

  /**
   * Sends one line; `take` gets its replies in the reply's own callback, which the control
   * client calls before it parses the next line, and what it throws rejects. Whatever a reply
   * changes is taken there, never after an `await`: a microtask later, the lines read with it in
   * the same chunk (newer) would already have been taken, and the older reply would undo them (a
   * scan's list once brought back a pane whose death the next line had reported).
   */
  private inOrder<T>(cmds: string[], take: (replies: Reply[]) => T): Promise<T> {
    return new Promise((resolve, reject) =>
      this.sendLine(cmds, (replies) => {
        try {
          resolve(take(replies));
        } catch (err) {
          reject(err as Error);
        }
      }),
    );
  }

  private async onClientExit(channel: ControlChannel, reason: string): Promise<void> {
    if (channel !== this.channel || this.stopping) return;
    this.channel = null;
    if (!(await this.control.running())) {
      this.log('info', 'the tmux server ended; the supervisor stops');
      await this.stop('tmux-ended');
      return;
    }
    // a server killed and another started at the same socket (tmux kill-server, then a new
    // session): that one is not ours to watch; its own supervisor starts with its first command
    const now = this.serverPid !== null ? await this.control.serverPid?.() : undefined;
    if (now !== undefined && now !== this.serverPid) {
      this.log('info', `the tmux server ended (pid ${this.serverPid}); ${now === null ? 'none' : `another (pid ${now})`} runs at its socket now: the supervisor stops`);
      await this.stop('tmux-ended');
      return;
    }
    this.log('warn', `control client ended (${reason || 'no reason'}); reconnecting`);
    for (const a of this.agents.values()) a.channelLost();
    await sleep(this.clock, 200);
    try {
      await this.connect();
      for (const a of this.agents.values()) a.snapshot();
    } catch (err) {
      this.log('error', `reconnect failed: ${(err as Error).message}`);
      await this.stop('lost-tmux');
    }
  }

  /** Why the supervisor stopped: asked to (`nerdr supervisor stop`), its tmux server ended, or it lost tmux for good. */
  stopCause: 'asked' | 'tmux-ended' | 'lost-tmux' | null = null;

  async stop(cause: 'asked' | 'tmux-ended' | 'lost-tmux' = 'asked'): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.stopCause = cause;
    this.scanTimer?.cancel();
    this.views.dispose();
    this.sweepTimer?.cancel();
    this.sweepTimer = null;
    this.conflicts.dispose();
    this.saver.dispose();
    this.statusFiles.dispose();
    for (const a of this.agents.values()) a.dispose();
    this.lights.dispose();
    this.statusKeeper.dispose();
    const channel = this.channel;
    if (channel && !channel.closed) {
      // no subscription left when the client detaches: tmux 3.2a and 3.3a check a control
      // client's subscriptions once a second, also while it is exiting, when it has no session
      // any more (docs/tmux.md; those nerdr makes are safe from that, pane-watch.ts). First on
      // the line, which a failed command ends.
      const names = [...SUBSCRIPTIONS, ...[...this.windowSubs].map(windowSubscriptionName)];
      const cmds = [command('refresh-client', ...names.flatMap((name) => ['-B', name]))];
      // the lights and the summary stay: once this client is gone, tmux shows their offline look
      for (const w of new Set([...this.agents.values()].map((a) => a.windowId))) cmds.push(command('set-option', '-w', '-t', w, '@nerdr_state', 'unknown'));
      cmds.push(command('set-option', '-gu', '@nerdr_supervisor_pid'));
      await new Promise<void>((resolve) => channel.send(cmds, () => resolve()));
      await channel.close();
    }
    this.emit('exit');
  }

  /** Kills the control client without a goodbye (tests of crash recovery use it). */
  crashForTest(): void {
    this.channel?.kill();
  }
}

export { ensureHiddenSession } from './channel.js';
export { escapeFormat };

/** @nerdr_facts: the arbiter's facts, and the spool events applied but not yet deleted. */
function factsJson(a: WatchedAgent): string {
  const f = a.arbiter.facts();
  return JSON.stringify(a.spoolApplied.size ? { ...f, spool: [...a.spoolApplied] } : f);
}

/** The first word of a tmux command line: what an error names. */
function verb(cmd: string): string {
  return cmd.trimStart().split(/\s/, 1)[0] || 'command';
}

/** Throws for the first of `cmds` tmux refused (not one skipped after it). */
function throwIfRefused(cmds: string[], replies: Reply[]): void {
  const i = cmds.findIndex((_, k) => replies[k] && !replies[k].ok && !replies[k].skipped);
  if (i >= 0) throw new TmuxCommandError(verb(cmds[i]!), replyText(replies[i]!));
}

/** A command's output; throws when tmux refused, skipped or never answered it. */
function okText(cmd: string, r: Reply | undefined): string {
  if (r?.ok) return replyText(r);
  throw new TmuxCommandError(verb(cmd), r ? replyText(r) || 'the command was skipped (the control client is gone)' : 'no reply');
}

/** config.toml's `[agents] on_limit` and `limit_message`, read at each reset. */
function configOnLimit(): { onLimit: OnLimit; message: string } {
  const { config } = loadConfig(configDir());
  return { onLimit: config.onLimit, message: config.limitMessage };
}
