// The supervisor: the one place where tmux, the socket and timers meet.
// %output → mirror → (detect → arbiter) → lights. One per tmux server.

import { EventEmitter } from 'node:events';
import { replyText, type Reply } from '../tmux/client.js';
import { command, escapeFormat } from '../tmux/quote.js';
import { tmuxFeatures, type TmuxFeatures } from '../tmux/features.js';
import { installLights } from '../tmux/status.js';
import { Mirror } from '../mirror/mirror.js';
import { buildSeed, resumeAndSnapshotCommands } from '../mirror/seed.js';
import { detectSnapshot, type ManifestRegistry } from '../detect/index.js';
import { Arbiter, type ArbiterUpdate, type PersistedFacts } from '../state/index.js';
import { probePane } from '../detect/procfs.js';
import type { Identification } from '../detect/identify.js';
import type { ProberEvent, ProberStep } from '../detect/prober.js';
import type { Report } from './socket/index.js';
import { applyHerdrReport, reportError } from './reports.js';
import { mapHookPayload } from '../integrations/events/index.js';
import { newWatched, type WatchedAgent } from './agent.js';
import { HIDDEN_SESSION, LIST_PANES_FORMAT, parseLayoutSizes, parsePaneList } from './discover.js';
import { LightsWriter } from './lights.js';
import { lightBgFrom, looksFromOptions, parseShowOptions } from '../looks.js';
import { Messenger } from './messages.js';
import { QueueStore } from '../store/queue.js';
import { SessionStore } from '../store/sessions.js';
import { SessionSaver } from './saver.js';
import { ViewWatcher } from './views.js';
import { ActiveWindows, type ActiveWindow } from './active.js';
import { pidAlive } from '../store/lock.js';
import { Notifier, type ClientView, type NotifyChannels } from './notify.js';
import path from 'node:path';
import type { Logger } from './log.js';
import { TmuxCommandError } from '../errors.js';
import { sleep, systemClock, type Clock, type Timer } from './clock.js';
import { tmuxControlServer, type ControlChannel, type ControlServer } from './channel.js';

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
  /** Which agent a pane's processes are (by default from /proc). */
  probe?: (panePid: number) => Promise<Identification>;
}

/** Output is coalesced: a screen is evaluated at most this often per pane. */
const EVAL_COALESCE_MS = 50;

export interface SupervisorEvents {
  /** An agent's state, counts or presence changed. */
  change: [agent: WatchedAgent];
  /** The window some user session shows changed (only while someone follows: `active.follow()`). */
  active: [list: ActiveWindow[]];
  exit: [];
}

export class Supervisor extends EventEmitter<SupervisorEvents> {
  readonly agents = new Map<string, WatchedAgent>();
  private channel: ControlChannel | null = null;
  private readonly control: ControlServer;
  private lights: LightsWriter;
  private scanTimer: Timer | null = null;
  /** Panes created by `nerdr new` in this process: their agent starts now (startup grace). */
  private readonly fresh = new Set<string>();
  private readonly views: ViewWatcher;
  /** Each user session's current window, for `nerdr review`. */
  readonly active: ActiveWindows;
  readonly messages: Messenger;
  readonly notifier: Notifier;
  private readonly saver: SessionSaver;
  private stopping = false;
  readonly clock: Clock;
  private readonly now: () => number;
  ready = false;
  clientName = '';
  clientPid = 0;
  tmuxVersion = '';
  /** What this tmux version can do (set once connected). */
  tmux: TmuxFeatures = tmuxFeatures('');
  /** Control-channel command lines sent (the benchmark reads it). */
  linesSent = 0;

  constructor(private readonly opts: SupervisorOptions) {
    super();
    this.clock = opts.clock ?? (opts.now ? { ...systemClock, now: opts.now } : systemClock);
    this.now = () => this.clock.now();
    this.control = opts.control ?? tmuxControlServer(opts.tmuxSocket);
    // A light goes out a few ms after the change; redraws stay at most 4 a second.
    this.lights = new LightsWriter((cmds, done) => this.sendLine(cmds, (r) => done(r.map((x) => x.ok))), 5, 250, undefined, this.clock);
    const agents = (): Iterable<WatchedAgent> => this.agents.values();
    this.notifier = new Notifier(opts.notify ?? { bell: true, osc: true, desktop: true }, (m) => opts.log('info', m));
    this.messages = new Messenger({
      sendLine: (cmds, done) => this.sendLine(cmds, done),
      log: opts.log,
      store: new QueueStore(path.join(opts.stateDir, 'queues')),
      now: this.now,
      changed: (a) => {
        this.paint(a);
        this.emit('change', a);
        // a queue that stalls while its window is on screen resumes after the usual second
        if (this.messages.queue(a).stalledAt !== null) this.views.schedule();
      },
    });
    this.views = new ViewWatcher({
      agents,
      messages: this.messages,
      run: (cmd) => this.run(cmd),
      seen: (a) => this.apply(a, a.arbiter.seen()),
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
    this.on('change', () => this.saver.schedule());
  }

  private get log(): Logger {
    return this.opts.log;
  }

  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    const channel = await this.control.open();
    this.channel = channel;
    channel.on('output', (pane, data) => this.onOutput(pane, data));
    channel.on('notification', (name, args) => this.onNotification(name, args));
    channel.on('exit', (reason) => void this.onClientExit(channel, reason));

    await this.run('refresh-client -f pause-after=5');
    const me = (await this.run(command('display', '-p', '#{client_name}\t#{client_pid}\t#{version}\t#{pid}'))).split('\t');
    this.clientName = me[0] ?? '';
    this.clientPid = Number(me[1]);
    this.tmuxVersion = me[2] ?? '';
    this.tmux = tmuxFeatures(this.tmuxVersion);
    // tmux 3.2 sizes windows by an unsized control client too (80x24): be ignored while a user's
    // client is attached, and have _nerdr's size while none is
    if (this.tmux.controlClientSized) await this.runAll(['refresh-client -f ignore-size', 'refresh-client -C 160x48']);
    await this.killStaleClients();
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
    await this.run(command('refresh-client', '-B', 'nerdr-p:%*:#{pane_dead}|#{pane_dead_status}|#{pane_in_mode}|#{pane_current_command}'));
    if (this.opts.installLights) await this.installLights();
    // the user's @nerdr-glyph-* / @nerdr-color-* choices (the TPM plugin documents them)
    const options = await this.run(command('show-options', '-g')).catch(() => '');
    const chosen = parseShowOptions(options);
    this.lights.setLooks(looksFromOptions(chosen), lightBgFrom(chosen));
    await this.scan();
    this.lights.invalidate();
    await this.runAll([
      command('set-option', '-g', '@nerdr_supervisor_pid', String(process.pid)),
      command('set-option', '-g', '@nerdr_client', this.clientName),
    ]);
    this.ready = true;
    this.log('info', `connected as ${this.clientName} (pid ${this.clientPid}) to ${this.tmuxVersion}; ${this.agents.size} agent(s)`);
  }

  /** Control clients on _nerdr left behind by a crashed supervisor (tmux-control-mode.md §9.3). */
  private async killStaleClients(): Promise<void> {
    const text = await this.run(command('list-clients', '-F', '#{client_name}\t#{client_pid}\t#{client_control_mode}\t#{session_name}'));
    for (const line of text.split('\n')) {
      const [name, pid, control, session] = line.split('\t');
      if (control !== '1' || session !== HIDDEN_SESSION || name === this.clientName) continue;
      const p = Number(pid);
      if (!Number.isInteger(p) || p <= 0 || p === this.clientPid) continue;
      this.log('warn', `ending stale control client ${name} (pid ${p})`);
      try {
        process.kill(p, 'SIGTERM');
      } catch {
        continue;
      }
      const deadline = this.now() + 1000;
      while (this.now() < deadline && pidAlive(p)) await sleep(this.clock, 20);
      if (pidAlive(p)) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    }
  }

  async installLights(): Promise<void> {
    const changed = await installLights((args) => this.run(command(args[0]!, ...args.slice(1))));
    for (const option of changed) this.log('info', `lights added to ${option}`);
  }

  // ---- discovery ---------------------------------------------------------------------

  scheduleScan(): void {
    if (this.scanTimer || this.stopping) return;
    this.scanTimer = this.clock.after(30, () => {
      this.scanTimer = null;
      void this.scan().catch((err: Error) => this.log('warn', `scan failed: ${err.message}`));
    });
  }

  async scan(): Promise<void> {
    const text = await this.run(command('list-panes', '-a', '-F', LIST_PANES_FORMAT));
    const found = parsePaneList(text);
    const seen = new Set<string>();
    const links: string[] = [];
    for (const p of found) {
      seen.add(p.paneId);
      let a = this.agents.get(p.paneId);
      if (!a) {
        a = newWatched(p, this.now);
        this.agents.set(p.paneId, a);
        const fresh = this.fresh.delete(p.paneId);
        this.apply(a, p.dead ? a.arbiter.processExit() : a.arbiter.processStart({ grace: fresh }));
        if (!fresh && p.facts) this.restoreFacts(a, p.facts);
        // A window launched as a known agent runs that agent as its pane process, whose death
        // tmux reports; only `--cmd` windows need to be told apart by their processes.
        a.probed = p.agent === 'unknown';
        if (!p.dead && a.probed) this.scheduleProbe(a, a.prober.start());
        this.log('info', `watching ${p.agent} ${p.windowId} ${p.paneId} "${p.name}"`);
        if (!p.inHidden) links.push(command('link-window', '-d', '-s', p.windowId, '-t', `=${HIDDEN_SESSION}:`));
        this.snapshot(a);
        // a new window is a change even when its state stays unknown (a `--cmd` window): it is saved
        this.emit('change', a);
      } else {
        const moved = a.name !== p.name || JSON.stringify(a.links) !== JSON.stringify(p.links);
        a.links = p.links;
        a.name = p.name;
        a.windowId = p.windowId;
        if (moved) this.emit('change', a);
        if (p.dead !== a.dead) this.setDead(a, p.dead, p.deadStatus);
        // tmux 3.3a sometimes learns an exit status late (helper finding): take it when it comes
        else if (a.dead && !a.deadStatus && p.deadStatus) {
          a.deadStatus = p.deadStatus;
          this.emit('change', a);
        }
      }
    }
    for (const line of links) this.sendLine([line], () => undefined);
    for (const [pane, a] of this.agents) {
      if (seen.has(pane)) continue;
      this.forget(a);
      this.log('info', `window ${a.windowId} (${a.name}) is gone`);
    }
  }

  /** An agent that was running before this supervisor: take back what the last one knew. */
  private restoreFacts(a: WatchedAgent, json: string): void {
    try {
      const facts = JSON.parse(json) as PersistedFacts;
      if (facts && facts.v === 1) this.apply(a, a.arbiter.restoreFacts(facts));
    } catch {
      this.log('warn', `${a.name}: unreadable @nerdr_facts, starting from the screen alone`);
    }
  }

  private forget(a: WatchedAgent): void {
    a.probeTimer?.cancel();
    a.evalTimer?.cancel();
    a.stateTimer?.cancel();
    a.mirror?.dispose();
    this.messages.forget(a);
    this.notifier.forget(a.windowId);
    this.agents.delete(a.paneId);
    this.lights.remove(a.windowId);
    this.emit('change', a);
  }

  // ---- mirrors -----------------------------------------------------------------------

  /**
   * Snapshot-then-stream: output queued before the reply is in the capture, output after it is
   * new. The line first continues the pane, should tmux have paused it for us (even before we
   * knew the pane), so no mirror is seeded from a pane whose output then stays withheld.
   */
  snapshot(a: WatchedAgent): void {
    a.seeding = true;
    const p = a.paneId;
    this.sendLine(resumeAndSnapshotCommands(p), (replies) => {
      const r = replies.slice(1);
      if (this.agents.get(p) !== a) return;
      a.seeding = false;
      if (r.length < 4 || r.some((x) => !x.ok)) {
        this.scheduleScan();
        return;
      }
      const seed = buildSeed(r.map((x) => x.lines));
      if (!a.mirror) a.mirror = new Mirror(seed.cols, seed.rows);
      a.mirror.seed(seed);
      this.scheduleEval(a);
    });
  }

  private onOutput(pane: string, data: Buffer): void {
    const a = this.agents.get(pane);
    if (!a || a.seeding || !a.mirror) return;
    a.lastOutputAt = this.now();
    if (a.mirror.write(data)) this.snapshot(a);
    else this.scheduleEval(a);
    if (a.probed) this.scheduleProbe(a, a.prober.output());
  }

  private onNotification(name: string, args: string): void {
    switch (name) {
      case 'pause': {
        // tmux dropped this pane's output for us (we fell behind by pause-after): continue it
        // and take the screen again; a pane we do not know yet is continued by its first seed
        const a = this.agents.get(args.trim());
        if (!a) break;
        this.log('info', `${a.name} (${a.paneId}): tmux paused its output (the supervisor fell behind); continued and re-seeded`);
        this.snapshot(a);
        break;
      }
      case 'layout-change': {
        const [win, layout = ''] = args.split(' ');
        for (const [pane, size] of parseLayoutSizes(layout)) {
          const a = this.agents.get(pane);
          if (!a || a.windowId !== win || !a.mirror) continue;
          if (a.mirror.cols !== size.cols || a.mirror.rows !== size.rows) this.snapshot(a);
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
      case 'window-add':
      case 'unlinked-window-add':
      case 'window-close':
      case 'unlinked-window-close':
      case 'window-renamed':
      case 'unlinked-window-renamed':
      case 'sessions-changed':
      case 'session-renamed':
        this.active.notify();
        this.scheduleScan();
        break;
      default:
        break;
    }
  }

  private onSubscription(args: string): void {
    // nerdr-p $S @W idx %P : dead|status|in_mode
    const sep = args.indexOf(' : ');
    if (sep < 0) return;
    const head = args.slice(0, sep).split(' ');
    if (head[0] !== 'nerdr-p') return;
    const a = this.agents.get(head[4] ?? '');
    if (!a) return;
    const [dead, status = '', inMode, command = ''] = args.slice(sep + 3).split('|');
    a.inMode = inMode === '1';
    if (command !== a.lastCommand) {
      a.lastCommand = command;
      if (!a.dead) this.scheduleProbe(a, a.prober.foregroundChanged());
    }
    if ((dead === '1') !== a.dead) this.setDead(a, dead === '1', status);
  }

  private setDead(a: WatchedAgent, dead: boolean, status: string): void {
    a.dead = dead;
    a.deadStatus = status;
    this.log('info', `${a.name} (${a.paneId}) ${dead ? `exited (status ${status || '?'})` : 'restarted'}`);
    if (!dead) {
      a.generation++;
      a.mirror?.clearOsc();
      this.snapshot(a);
      this.scheduleProbe(a, a.prober.start());
    } else if (a.probeTimer) {
      a.probeTimer.cancel();
      a.probeTimer = null;
      a.probeAt = null;
    }
    this.apply(a, dead ? a.arbiter.processExit() : a.arbiter.processStart());
  }

  // ---- which agent runs in the pane ---------------------------------------------------------

  /** Takes the prober's events and keeps one timer for its next probe. */
  private scheduleProbe(a: WatchedAgent, step: ProberStep): void {
    if (!a.probed) return;
    for (const e of step.events) this.onProberEvent(a, e);
    if (step.probeAt === a.probeAt && a.probeTimer) return; // the per-output call stays cheap
    a.probeTimer?.cancel();
    a.probeTimer = null;
    a.probeAt = step.probeAt;
    if (step.probeAt === null || a.dead || this.stopping) return;
    a.probeTimer = this.clock.after(Math.max(0, step.probeAt - this.now()), () => {
      a.probeTimer = null;
      a.probeAt = null;
      if (this.agents.get(a.paneId) !== a) return;
      if (!a.prober.beginProbe()) return this.scheduleProbe(a, a.prober.step());
      (this.opts.probe ?? probePane)(a.panePid).then(
        (id) => this.agents.get(a.paneId) === a && this.scheduleProbe(a, a.prober.probeResult(id)),
        () => this.agents.get(a.paneId) === a && this.scheduleProbe(a, a.prober.probeFailed()),
      );
    });
  }

  private onProberEvent(a: WatchedAgent, e: ProberEvent): void {
    if (e.type === 'agent-start') {
      if (e.agent !== a.arbiter.agent) {
        this.log('info', `${a.name}: ${e.agent} is running (${e.why})`);
        a.agent = e.agent;
        a.arbiter = new Arbiter({ agent: e.agent, clock: this.now });
        a.mirror?.clearOsc();
        this.apply(a, a.arbiter.processStart({ grace: true }));
        this.scheduleEval(a);
        this.emit('change', a);
      }
    } else if (e.type === 'agent-exit') {
      if (a.agent === 'unknown') return;
      this.log('info', `${a.name}: ${a.agent} left the pane (${e.reason}); it is a terminal again`);
      a.agent = 'unknown';
      a.arbiter = new Arbiter({ agent: 'unknown', clock: this.now });
      a.mirror?.clearOsc();
      this.apply(a, a.arbiter.processStart({ grace: false }));
      this.emit('change', a);
    }
  }

  // ---- state -------------------------------------------------------------------------

  /**
   * Output is coalesced: the first output after a quiet spell is judged at once (a dialog's
   * light should not wait), a stream of output at most every EVAL_COALESCE_MS.
   */
  private scheduleEval(a: WatchedAgent): void {
    if (a.evalTimer) return;
    const wait = Math.max(2, a.lastEvalAt + EVAL_COALESCE_MS - this.now());
    a.evalTimer = this.clock.after(wait, () => {
      a.evalTimer = null;
      a.lastEvalAt = this.now();
      this.evaluate(a);
    });
  }

  private evaluate(a: WatchedAgent): void {
    const mirror = a.mirror;
    if (a.dead || !mirror || a.seeding) return;
    if (!mirror.isFlushed) {
      void mirror.flushed().then(() => this.scheduleEval(a));
      return;
    }
    const loaded = this.opts.manifests.get(a.agent);
    if (!loaded) return; // no rules for this program: its state stays unknown
    const snap = mirror.snapshot();
    const det = detectSnapshot(loaded, snap);
    if (det.skip) return;
    a.lastDetection = { at: this.now(), result: det, manifest: { source: loaded.source, path: loaded.path, version: loaded.version } };
    // A blank screen tells nothing (an agent still loading: opencode resuming a long session
    // draws nothing for seconds). The idle fallback would call it idle and let a message in.
    const blank = det.fallbackReason && snap.rows.every((r) => r.trim() === '');
    this.apply(
      a,
      a.arbiter.screen({
        state: blank ? 'unknown' : det.state,
        visibleIdle: det.visibleIdle,
        visibleBlocker: det.visibleBlocker,
        visibleWorking: det.visibleWorking,
        skipStateUpdate: det.skipStateUpdate,
        hash: String(mirror.fingerprint()),
        hasIdleRules: det.hasIdleRules,
        fallback: !blank && det.fallbackReason !== null && det.fallbackReason !== undefined,
        rule: det.rule ?? undefined,
      }),
    );
  }

  /** Takes the arbiter's answer: the light, and the one timer for its next deadline. */
  apply(a: WatchedAgent, update: ArbiterUpdate): void {
    a.stateTimer?.cancel();
    a.stateTimer = null;
    if (update.deadline !== null && !this.stopping) {
      a.stateTimer = this.clock.after(Math.max(0, update.deadline - this.now()) + 1, () => {
        a.stateTimer = null;
        if (this.agents.get(a.paneId) === a) this.apply(a, a.arbiter.tick());
      });
    }
    const v = update.view;
    a.background = v.background;
    const changed = a.state !== v.state;
    if (changed) {
      a.state = v.state;
      a.stateSince = this.now();
      if (v.state === 'done') this.views.schedule();
      if (v.state === 'done' || v.state === 'blocked') this.announce(a);
      this.messages.stateChanged(a);
    }
    if (update.change) this.emit('change', a);
    this.paint(a);
    this.lights.setOption(a.windowId, '@nerdr_facts', JSON.stringify(a.arbiter.facts()));
  }

  private paint(a: WatchedAgent): void {
    this.lights.set(a.windowId, { state: a.state, kind: a.background ? 'background' : a.state, suffix: this.messages.suffix(a) });
  }

  // ---- notifications ---------------------------------------------------------------------

  /** Tells the user an agent needs them, unless a client shows its window. */
  private announce(a: WatchedAgent): void {
    const key = `${a.state}@${a.stateSince}`;
    const passthroughKnown = this.tmux.passthroughOption;
    this.sendLine(
      [
        command('display', '-p', '-t', a.paneId, '#{pane_tty}'),
        command('list-clients', '-F', '#{client_control_mode}\t#{window_id}\t#{pane_tty}\t#{allow-passthrough}'),
      ],
      ([tty, clients]) => {
        if (!tty?.ok || !clients?.ok || this.agents.get(a.paneId) !== a) return;
        const views: ClientView[] = clients.lines
          .map((l) => l.toString().split('\t'))
          .map(([control, win = '', paneTty = '', pass = '']) => ({
            control: control === '1',
            windowId: win,
            paneTty,
            // tmux 3.3 prints the flag as 1, later versions as on/all
            passthrough: passthroughKnown ? pass === 'on' || pass === 'all' || pass === '1' : true,
          }));
        const what = a.state === 'blocked' ? 'needs you' : 'finished';
        this.notifier.notify({ windowId: a.windowId, paneTty: tty.lines.join('').trim(), title: `nerdr: ${a.name}`, body: `${a.agent} ${what}` }, key, views);
      },
    );
  }

  private refreshMode(a: WatchedAgent): void {
    this.sendLine([command('display', '-p', '-t', a.paneId, '#{pane_in_mode}')], ([r]) => {
      if (r?.ok) a.inMode = r.lines.map((l) => l.toString()).join('').trim() === '1';
      if (!a.inMode) this.messages.tryDeliver(a);
    });
  }

  /** A hook event from `nerdr hook <agent>`, already authenticated to this window. */
  onHook(a: WatchedAgent, agent: string, event: unknown, hint?: string): void {
    const fact = mapHookPayload(agent, event, hint);
    if (!fact) return;
    this.apply(a, a.arbiter.hookFact(fact));
    if (fact.kind === 'prompt-submit' || fact.kind === 'turn-start') this.messages.promptSubmitted(a);
  }

  /** A note for `ls`, kept on the window so that it outlives the supervisor. */
  setNote(a: WatchedAgent, note: string): void {
    a.note = note;
    this.log('info', `${a.name}: ${note}`);
    this.lights.setOption(a.windowId, '@nerdr_note', note);
    this.emit('change', a);
  }

  /**
   * A herdr report (pane.report_agent …) for this window; the socket checked secret and seq.
   * Throws the RpcError herdr would answer when the report is refused (metadata_token_limit).
   */
  onReport(a: WatchedAgent, r: Report<WatchedAgent>): void {
    const u = applyHerdrReport(a.arbiter, r);
    if (!u) return;
    this.apply(a, u);
    const err = reportError(u);
    if (err) throw err;
  }

  /**
   * The pane's program was replaced (`nerdr.respawn`): a new process, a new owner of the
   * conversation. Marked alive here, so the dead → alive change tmux shows later is no second start.
   */
  restarted(a: WatchedAgent): void {
    this.setDead(a, false, '');
  }

  /** Manifests changed on disk: every screen is judged again by the new rules. */
  reevaluateAll(): void {
    for (const a of this.agents.values()) this.scheduleEval(a);
  }

  /** `nerdr new` announces its pane before the window shows up in a scan. */
  expectFresh(paneId: string): void {
    this.fresh.add(paneId);
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

  async run(cmd: string): Promise<string> {
    const [r] = await new Promise<Reply[]>((resolve) => this.sendLine([cmd], resolve));
    if (!r?.ok) throw new TmuxCommandError(verb(cmd), r ? replyText(r) || 'the command was skipped (the control client is gone)' : 'no reply');
    return replyText(r);
  }

  async runAll(cmds: string[]): Promise<Reply[]> {
    const replies = await new Promise<Reply[]>((resolve) => this.sendLine(cmds, resolve));
    const i = replies.findIndex((r) => !r.ok && !r.skipped);
    if (i >= 0) throw new TmuxCommandError(verb(cmds[i] ?? ''), replyText(replies[i]!));
    return replies;
  }

  private async onClientExit(channel: ControlChannel, reason: string): Promise<void> {
    if (channel !== this.channel || this.stopping) return;
    this.channel = null;
    if (!(await this.control.running())) {
      this.log('info', 'the tmux server ended; the supervisor stops');
      await this.stop();
      return;
    }
    this.log('warn', `control client ended (${reason || 'no reason'}); reconnecting`);
    for (const a of this.agents.values()) a.seeding = false;
    await sleep(this.clock, 200);
    try {
      await this.connect();
      for (const a of this.agents.values()) this.snapshot(a);
    } catch (err) {
      this.log('error', `reconnect failed: ${(err as Error).message}`);
      await this.stop();
    }
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.scanTimer?.cancel();
    this.views.dispose();
    this.saver.dispose();
    for (const a of this.agents.values()) {
      a.probeTimer?.cancel();
      a.evalTimer?.cancel();
      a.stateTimer?.cancel();
    }
    this.lights.dispose();
    const channel = this.channel;
    if (channel && !channel.closed) {
      // lights must not go on claiming states nobody is watching any more
      const cmds = [...new Set([...this.agents.values()].map((a) => a.windowId))].flatMap((w) => [
        command('set-option', '-w', '-u', '-t', w, '@nerdr_light'),
        command('set-option', '-w', '-t', w, '@nerdr_state', 'unknown'),
      ]);
      cmds.push(command('set-option', '-g', '@nerdr_summary', ''), command('set-option', '-gu', '@nerdr_supervisor_pid'));
      await new Promise<void>((resolve) => channel.send(cmds, () => resolve()));
      await channel.close();
    }
    for (const a of this.agents.values()) a.mirror?.dispose();
    this.emit('exit');
  }

  /** Kills the control client without a goodbye (tests of crash recovery use it). */
  crashForTest(): void {
    this.channel?.kill();
  }
}

export { ensureHiddenSession } from './channel.js';
export { escapeFormat };

/** The first word of a tmux command line: what an error names. */
function verb(cmd: string): string {
  return cmd.trimStart().split(/\s/, 1)[0] || 'command';
}
