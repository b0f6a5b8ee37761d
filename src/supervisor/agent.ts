// One watched window: its pane's mirror, arbiter and prober, and the three timers that drive
// them (the coalesced evaluation, the arbiter's one deadline, the next probe). The supervisor
// routes tmux's lines here and hears back through WindowHost; dispose() ends all of it.
// Only this class writes its fields: everyone else reads them.

import type { AgentState } from '../types.js';
import type { Reply } from '../tmux/client.js';
import { Mirror } from '../mirror/mirror.js';
import { buildSeed, resumeAndSnapshotCommands } from '../mirror/seed.js';
import { Arbiter, DEFAULT_IDLE_AFTER_MS, type AgentStatus, type ArbiterUpdate, type PersistedFacts } from '../state/index.js';
import { detectSnapshot, inputLine, type Detection, type LoadedManifest } from '../detect/index.js';
import { PaneProber, type ProberEvent, type ProberStep } from '../detect/prober.js';
import type { Identification } from '../detect/identify.js';
import type { HookFact } from '../integrations/events/index.js';
import { integrationFor } from '../integrations/index.js';
import { limitDialogShown, limitOnScreen, readLimitText } from '../detect/limits.js';
import type { FoundPane } from './discover.js';
import { parseHibernation, type Hibernation } from './hibernate.js';
import { afterOrCoarse, type Clock, type Timer } from './clock.js';
import type { Logger } from './log.js';
import { command } from '../tmux/quote.js';
import { EXIT_STATUS_OPTION } from './discover.js';
import { FLOOD_BYTES, FLOOD_CALM_MS, FLOOD_PAUSE_MS, FLOOD_WINDOW_MS, FloodGate } from './flood.js';

/**
 * The program exited while its pane's output was paused (a flood) and the exit guard's marker has
 * not come since: how long the marker is waited for before the guard is released without it.
 */
export const EXIT_MARKER_WAIT_MS = 1000;

/** Output is coalesced: a screen is evaluated at most this often per pane. */
export const EVAL_COALESCE_MS = 50;

/**
 * A write this small, after a quiet spell, is judged in the turn that read it: tmux reads a
 * pane's terminal in chunks of up to 4 KB, so a draw larger than that may come in parts (and
 * waits 2 ms for the rest); one this small came whole.
 */
export const SAME_TURN_EVAL_MAX = 2048;

/** Most output kept while a snapshot's continue is on its way (snapshot()); past it the screen is taken again. */
export const SEED_TAIL_MAX = 4 * FLOOD_BYTES;

/** What a window needs from the supervisor around it. */
export interface WindowHost {
  readonly clock: Clock;
  log: Logger;
  /** The detection rules for an agent; undefined: its state stays unknown. */
  manifest(agent: string): LoadedManifest | undefined;
  send(commands: string[], done: (replies: Reply[]) => void): void;
  /** Which agent a pane's processes are. */
  probe(panePid: number): Promise<Identification>;
  /**
   * The arbiter answered: publish it (light, facts, queue, notifications). `limitLapsed`: the
   * agent's usage limit just reset (`[agents] on_limit`). `restored`: the state a previous
   * supervisor kept, taken back (not announced again).
   */
  settled(a: WatchedAgent, update: { stateChanged: boolean; change: boolean; limitLapsed?: { words: string; resetAt: number }; restored?: boolean }): void;
  /** Something `ls` shows changed without a new state (the agent in it, the exit status, the name). */
  changed(a: WatchedAgent): void;
  /** The pane could not be captured: look at the panes again. */
  rescan(): void;
  /**
   * Signal the exit guard of the pane (src/supervisor/create.ts) that its program's output is
   * in, when a flood hid its marker: at most once per program (WatchedAgent.exitMarker).
   */
  releaseExitGuard(a: WatchedAgent): void;
}

export interface LastDetection {
  at: number;
  result: Detection;
  manifest: { source: string; path: string; version: string | null };
}

export class WatchedAgent {
  readonly paneId: string;
  readonly id: string;
  readonly cwd: string;
  readonly argv: string[];
  /** The user's own launch arguments, without nerdr's wiring. */
  readonly args: string[];
  /** The pane's process (a respawn or a later scan gives the new one). */
  panePid: number;
  /** The worktree nerdr made for this window, its branch and base; null for none. */
  readonly worktree: string | null;
  readonly branch: string | null;
  readonly base: string | null;
  /** The agent windows that started this one (ids, nearest first); empty when a person did. */
  readonly lineage: string[];
  /** Whether the prober runs: only for windows not launched as a known agent (`--cmd`). */
  readonly probed: boolean;
  /**
   * Hook-spool events applied to this window whose files are not deleted yet. They are kept in
   * @nerdr_facts with their effect, so a supervisor that dies between the two never has an event
   * applied twice by the next one, nor lost (src/supervisor/spool.ts).
   */
  readonly spoolApplied = new Set<string>();
  /** The quiet rule's wait while no manifest knows the window's program (ms; 0 = off). */
  readonly idleAfterMs: number;
  /**
   * The id of the last queued message whose paste line tmux ran in this pane, as this
   * supervisor found it ('' for none): whether a message the one before marked as typing reached
   * tmux (src/supervisor/messages.ts).
   */
  readonly typedWhenFound: string;

  private _windowId: string;
  private _name: string;
  private _links: FoundPane['links'];
  private _agent: string;
  private _secretHash: string;
  private _note: string | null;
  private _mirror: Mirror | null = null;
  private _seeding = false;
  /**
   * The pane is paused for our client and none of its older output is still on its way to us:
   * tmux answered a pause of ours or said `%pause`, and no continue went out since.
   */
  private pausedForUs = false;
  /** Who waits for the first snapshot (screenRead()). */
  private readonly screenWaiters: Array<() => void> = [];
  /** Output that came while a snapshot's continue was on its way (snapshot()). null: not then, or more than SEED_TAIL_MAX came. */
  private seedTail: Buffer[] | null = null;
  private seedTailBytes = 0;
  /** A snapshot was asked for while one was being taken: another follows it. */
  private snapshotAgain = false;
  /** The next snapshot pauses the pane first (snapshot(), step 1): the last one could not tell old output from new. */
  private pauseFirst = false;
  /** Which snapshot a reply belongs to: a lost channel's replies are not this one's. */
  private seedToken = 0;
  private _dead: boolean;
  private _deadStatus: string;
  private _inMode = false;
  private _state: AgentState;
  private _stateSince: number;
  private _background = false;
  private _lastOutputAt = 0;
  private _arbiter: Arbiter;
  private _lastDetection: LastDetection | null = null;
  private _unknowable: string | null = null;
  private _generation = 0;
  private readonly prober: PaneProber;
  private lastEvalAt = 0;
  private lastCommand = '';
  private probeAt: number | null = null;
  private evalTimer: Timer | null = null;
  private stateTimer: Timer | null = null;
  private probeTimer: Timer | null = null;
  private disposed = false;
  private _hibernation: Hibernation | null;
  // a flood (src/supervisor/flood.ts): the pane's output is paused for our client while floodPaused
  private readonly floodGate = new FloodGate();
  private floodPaused = false;
  private floodTimer: Timer | null = null;
  private floodCalmTimer: Timer | null = null;
  private _floodSince: number | null = null;
  private floodCycles = 0;
  /** The exit guard was released without its marker (a pause hid it): skip the marker's signal. */
  private releasedWithoutMarker = false;
  private exitMarkerTimer: Timer | null = null;

  constructor(
    p: FoundPane,
    private readonly host: WindowHost,
  ) {
    const now = host.clock.now;
    this.paneId = p.paneId;
    this.id = p.id;
    this.cwd = p.cwd;
    this.argv = p.argv;
    this.args = p.args;
    this.panePid = p.panePid;
    this.worktree = p.worktree || null;
    this.branch = p.worktree ? p.branch : null;
    this.base = p.worktree ? p.base : null;
    this.lineage = p.lineage;
    // A window launched as a known agent runs that agent as its pane process, whose death
    // tmux reports; only `--cmd` windows need to be told apart by their processes.
    this.probed = p.agent === 'unknown';
    this.idleAfterMs = p.idleAfterMs ?? DEFAULT_IDLE_AFTER_MS;
    this.typedWhenFound = p.typed;
    this._windowId = p.windowId;
    this._name = p.name;
    this._links = p.links;
    this._agent = p.agent;
    this._secretHash = p.secretHash;
    this._note = p.note || null;
    this._dead = p.dead;
    this._deadStatus = p.deadStatus;
    this._hibernation = parseHibernation(p.hibernated);
    this._state = this._hibernation ? 'hibernated' : p.dead ? 'exited' : 'unknown';
    this._stateSince = now();
    this._arbiter = new Arbiter({ agent: p.agent, clock: now, idleAfterMs: this.idleAfterMs });
    this.prober = new PaneProber({ clock: now, agent: p.agent === 'unknown' ? null : p.agent });
  }

  get windowId(): string {
    return this._windowId;
  }
  get name(): string {
    return this._name;
  }
  get links(): FoundPane['links'] {
    return this._links;
  }
  /** The window's agent: launched, or found running by the prober. */
  get agent(): string {
    return this._agent;
  }
  get secretHash(): string {
    return this._secretHash;
  }
  /** Something the user should know about this window (e.g. a resume that failed). */
  get note(): string | null {
    return this._note;
  }
  get mirror(): Mirror | null {
    return this._mirror;
  }
  /**
   * The screen is not mirrored yet, or a snapshot is on its way (%output for the pane is dropped
   * until it lands): nothing is typed in (src/supervisor/messages.ts).
   */
  get seeding(): boolean {
    return this._seeding || this._mirror === null;
  }
  get dead(): boolean {
    return this._dead;
  }
  get deadStatus(): string {
    return this._deadStatus;
  }
  get inMode(): boolean {
    return this._inMode;
  }
  get state(): AgentState {
    return this._state;
  }
  get stateSince(): number {
    return this._stateSince;
  }
  get background(): boolean {
    return this._background;
  }
  get lastOutputAt(): number {
    return this._lastOutputAt;
  }
  get arbiter(): Arbiter {
    return this._arbiter;
  }
  /** Last screen evaluation, for `nerdr explain`. */
  get lastDetection(): LastDetection | null {
    return this._lastDetection;
  }
  /**
   * Why nerdr cannot tell whether the window's program waits for input, or null: no manifest
   * knows it and the quiet rule cannot say (it is off, or the cursor is not on an input line).
   * A message is not queued for it then (docs/state-rules.md, "The quiet rule").
   */
  get unknowable(): string | null {
    return this._unknowable;
  }
  /** Hibernated (src/supervisor/hibernate.ts): what waking needs; null while it runs. */
  get hibernation(): Hibernation | null {
    return this._hibernation;
  }

  /**
   * Hibernated from now on: the state says so before its program ends (so that end is no
   * `exited`), and nothing is judged or probed until it wakes.
   */
  hibernate(h: Hibernation): void {
    this._hibernation = h;
    for (const t of [this.evalTimer, this.stateTimer, this.probeTimer]) t?.cancel();
    this.evalTimer = this.stateTimer = this.probeTimer = null;
    this.endFlood(false);
    this.probeAt = null;
    const changed = this._state !== 'hibernated';
    this._state = 'hibernated';
    this._stateSince = this.host.clock.now();
    this.host.settled(this, { stateChanged: changed, change: true });
  }

  /** It wakes: the respawn that follows (respawned()) starts it as any new process. */
  woke(): void {
    this._hibernation = null;
  }

  /** Bumped when the pane's process is replaced (respawn), so waits tied to the old one end. */
  get generation(): number {
    return this._generation;
  }

  /**
   * The first look: the arbiter hears of the process (a pane `nerdr new` just made starts with
   * the startup grace), takes back what a previous supervisor kept, the prober starts, the
   * screen is captured. `look: false`: the screen is taken later (snapshot()); a starting
   * supervisor is ready first (Supervisor.connect).
   */
  begin(opts: { fresh: boolean; facts: string; look?: boolean }): void {
    this.apply(this._dead ? this._arbiter.processExit() : this._arbiter.processStart({ grace: opts.fresh }));
    if (!opts.fresh && opts.facts) this.restoreFacts(opts.facts);
    if (!this._dead && this.probed) this.scheduleProbe(this.prober.start());
    if (opts.look !== false) this.snapshot();
  }

  /** Resolves once the window's screen is mirrored (its first snapshot in and parsed), or the window is gone. */
  screenRead(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    if (this._mirror) return this._mirror.flushed();
    return new Promise((resolve) => this.screenWaiters.push(resolve));
  }

  /** An agent that was running before this supervisor: take back what the last one knew. */
  private restoreFacts(json: string): void {
    try {
      const facts = JSON.parse(json) as PersistedFacts & { spool?: unknown };
      if (facts && Array.isArray(facts.spool)) for (const n of facts.spool) if (typeof n === 'string') this.spoolApplied.add(n);
      // what the last supervisor knew, not news: its done or blocked was announced then
      if (facts && facts.v === 1) this.apply(this._arbiter.restoreFacts(facts), true);
    } catch {
      this.host.log('warn', `${this._name}: unreadable @nerdr_facts, starting from the screen alone`);
    }
  }

  /** The pane as a later scan found it; true when its name or its sessions changed. */
  found(p: FoundPane): boolean {
    const moved = this._name !== p.name || JSON.stringify(this._links) !== JSON.stringify(p.links);
    this._links = p.links;
    this._name = p.name;
    this._windowId = p.windowId;
    if (p.panePid) this.panePid = p.panePid;
    if (moved) this.host.changed(this);
    if (p.dead !== this._dead) this.setDead(p.dead, p.deadStatus);
    // tmux 3.3a sometimes learns an exit status late: take it when it comes
    else if (this._dead && !this._deadStatus && p.deadStatus) {
      this._deadStatus = p.deadStatus;
      this.host.changed(this);
    }
    return moved;
  }

  // ---- the mirror ----------------------------------------------------------------------------

  /**
   * Snapshot-then-stream: every byte the pane writes ends up either in the capture or written to
   * the mirror after it, once. One line continues the pane and captures it; the question is
   * what to do with the pane's output that comes before that line's answer.
   *
   * tmux writes a pane's queued output without waiting for the lines queued ahead of it
   * (control.c, control_write_pending, 3.2a to 3.7c), so while we are behind, output read after
   * the capture can reach us before the capture's answer, mixed with output from before it (a
   * dialog drawn right after a re-seed was lost that way: test/live/stall.test.ts in CI). So:
   *
   * - A pane paused for us (pausedForUs: tmux said `%pause`, or answered a pause of ours, and
   *   no continue went out since) has none of its older output on its way: whatever comes before
   *   the answer is newer than the capture. It is kept (seedTail) and written after the seed.
   * - Any other pane is captured at once (no round trip more, nothing paused: the usual case,
   *   output arrives after the answer). Output that came before the answer may be older or newer
   *   than the capture: when there was some, the screen is taken again, this time pausing the
   *   pane first (step 1) and continuing it with the capture once tmux answers (step 2).
   *
   * One snapshot at a time: one asked for meanwhile is taken after it.
   */
  snapshot(): void {
    if (this.disposed) return;
    if (this._seeding) {
      this.snapshotAgain = true;
      return;
    }
    this._seeding = true;
    const token = ++this.seedToken;
    if (this.pausedForUs || !(this.pauseFirst || this.floodPaused)) {
      this.takeSnapshot(token);
      return;
    }
    // step 1: once tmux answers, none of the pane's older output is on its way to us (what it had
    // queued of it is dropped, what it had written came before the answer)
    this.host.send([command('refresh-client', '-A', `${this.paneId}:pause`)], ([r]) => {
      if (this.disposed || token !== this.seedToken) return;
      if (!r?.ok) {
        this._seeding = false;
        this.host.rescan();
        return;
      }
      this.pausedForUs = true;
      this.takeSnapshot(token);
    });
  }

  /** The line that continues the pane and captures it (snapshot()). */
  private takeSnapshot(token: number): void {
    // paused for us: all that comes before the answer is newer than the capture
    const afterPause = this.pausedForUs;
    this.pausedForUs = false;
    this.pauseFirst = false;
    this.seedTail = [];
    this.seedTailBytes = 0;
    // paused for a flood: the line's continue ends that
    const wasFlood = this.floodPaused;
    if (wasFlood) {
      this.floodPaused = false;
      this.floodTimer?.cancel();
      this.floodTimer = null;
    }
    // paused: the line also asks whether the program exited meanwhile (exitWhilePaused)
    const paused = afterPause || wasFlood;
    const commands = resumeAndSnapshotCommands(this.paneId);
    if (paused) commands.splice(1, 0, command('display', '-p', '-t', this.paneId, `#{${EXIT_STATUS_OPTION}}`));
    this.host.send(commands, (replies) => {
      if (this.disposed || token !== this.seedToken) return;
      const r = replies.slice(paused ? 2 : 1);
      const tail = this.seedTail;
      this.seedTail = null;
      if (wasFlood) this.floodResumed();
      if (paused) this.exitWhilePaused(replies[1]);
      this._seeding = false;
      if (r.length < 4 || r.some((x) => !x.ok)) {
        this.snapshotAgain = false;
        this.host.rescan();
        return;
      }
      const seed = buildSeed(r.map((x) => x.lines));
      if (!this._mirror) this._mirror = new Mirror(seed.cols, seed.rows);
      this._mirror.seed(seed);
      if (this.screenWaiters.length > 0) void this._mirror.flushed().then(() => this.endScreenWaits());
      // output of unknown age came (or more than we keep): taken again, the pane paused first
      const unsure = !tail || (!afterPause && tail.length > 0);
      if (this.snapshotAgain || unsure) {
        this.snapshotAgain = false;
        this.pauseFirst = unsure;
        this.snapshot();
        return;
      }
      this.scheduleEval();
      for (const chunk of tail) this.output(chunk);
    });
  }

  /**
   * tmux said `%pause` for this pane. True when tmux paused it on its own (pause-after: we fell
   * behind), and a snapshot now continues it; false when it is ours (a flood's, a snapshot's
   * first step) or a continue of ours is on its way (tmux keeps the order of its lines, so this
   * `%pause` is older than the continue, which ends it).
   */
  paused(): boolean {
    if (this.disposed) return false;
    if (this._seeding) return false;
    // no output of the pane is on its way after a %pause, whoever took it
    this.pausedForUs = true;
    if (this.floodPaused) return false;
    this.snapshot();
    return true;
  }

  /** The channel ended: no snapshot is on its way any more (the next one seeds again). */
  channelLost(): void {
    this._seeding = false;
    this.seedToken++;
    this.seedTail = null;
    this.snapshotAgain = false;
    this.pauseFirst = false;
    this.pausedForUs = false;
    // a new control client takes every pane's output: nothing is paused for it
    this.floodPaused = false;
    this.endFlood(false);
  }

  /** %output for this pane. */
  output(data: Buffer): void {
    if (this.disposed) return;
    if (this._seeding) {
      // newer than the capture on its way (snapshot()), or of unknown age; dropped before the
      // continue (older than the capture) and past SEED_TAIL_MAX (the screen is taken again)
      if (!this.seedTail) return;
      this.seedTailBytes += data.length;
      if (this.seedTailBytes > SEED_TAIL_MAX) this.seedTail = null;
      else this.seedTail.push(data);
      return;
    }
    // paused: anything tmux had written before it took the pause is dropped too
    if (!this._mirror || this.floodPaused) return;
    const now = this.host.clock.now();
    this._lastOutputAt = now;
    if (this.floodGate.feed(data.length, now, this._floodSince !== null)) this.pauseOutput(now);
    else if (this._mirror.write(data)) this.snapshot();
    else this.scheduleEval(data.length <= SAME_TURN_EVAL_MAX && this._mirror.isFlushed);
    if (this.probed) this.scheduleProbe(this.prober.output());
  }

  // ---- floods (src/supervisor/flood.ts) ------------------------------------------------------

  /** We paused the pane's output for a flood: a `%pause` for it is ours, not pause-after's. */
  get outputPaused(): boolean {
    return this.floodPaused;
  }

  /** Since when the pane floods (its screen taken from tmux every FLOOD_PAUSE_MS), or null. */
  get floodSince(): number | null {
    return this._floodSince;
  }

  /**
   * The gate tripped: the pane is paused for our client (tmux drops what it queued of it and
   * sends no more, and says `%pause`, which the supervisor leaves to us while outputPaused), and
   * its screen is taken again soon. Not `off`: tmux 3.3a crashed (measured) turning off a pane
   * with output queued for the client (3.2a's source has the same gap, 3.7c's drops that output
   * first), and a paused pane never stops tmux reading it, whoever else is attached.
   */
  private pauseOutput(now: number): void {
    this.floodPaused = true;
    this.floodCycles++;
    this.floodCalmTimer?.cancel();
    this.floodCalmTimer = null;
    if (this._floodSince === null) {
      this._floodSince = now;
      this.host.log('info', `${this._name} (${this.paneId}): its output floods (over ${FLOOD_BYTES >> 10} KiB in ${FLOOD_WINDOW_MS} ms): not parsed, its screen taken from tmux every ${FLOOD_PAUSE_MS} ms until it calms`);
    }
    const token = this.seedToken;
    this.host.send([command('refresh-client', '-A', `${this.paneId}:pause`)], ([r]) => {
      // tmux's answer: none of the pane's older output is still on its way
      if (r?.ok && token === this.seedToken && this.floodPaused && !this._seeding) this.pausedForUs = true;
    });
    this.floodTimer?.cancel();
    this.floodTimer = this.host.clock.after(FLOOD_PAUSE_MS, () => {
      this.floodTimer = null;
      this.snapshot();
    });
  }

  /** A flood's pause ended (its screen taken): the gate starts again, and the flood ends after FLOOD_CALM_MS without another. */
  private floodResumed(): void {
    this.floodGate.reset();
    this.floodCalmTimer?.cancel();
    this.floodCalmTimer = this.host.clock.after(FLOOD_CALM_MS, () => {
      this.floodCalmTimer = null;
      this.endFlood(true);
    });
  }

  /**
   * The pane was continued after a pause (a flood's, a snapshot's first step, tmux's), with the
   * screen of that moment. `exit`: the pane's exit status, set by the exit guard once the program
   * ended. If it ended while the output was paused, tmux may have read the guard's marker then,
   * and it would never reach us: unless it comes within EXIT_MARKER_WAIT_MS, the guard is
   * released without it (the screen is in this seed).
   */
  private exitWhilePaused(exit: Reply | undefined): void {
    // a number, as the guard writes it: anything else is not an exit
    const status = exit?.ok ? (exit.lines[0]?.toString() ?? '').trim() : '';
    if (!/^\d+$/.test(status) || this._dead || this.exitMarkerTimer) return;
    this.exitMarkerTimer = this.host.clock.after(EXIT_MARKER_WAIT_MS, () => {
      this.exitMarkerTimer = null;
      if (this._dead || this.disposed) return;
      this.releasedWithoutMarker = true;
      this.host.log('info', `${this._name} (${this.paneId}): its program exited while its output was paused for us; the exit guard is released without its marker`);
      this.host.releaseExitGuard(this);
    });
  }

  /** The flood is over (or no longer followed): its timers end; `log` says how it went. */
  private endFlood(log: boolean): void {
    this.floodTimer?.cancel();
    this.floodCalmTimer?.cancel();
    this.floodTimer = this.floodCalmTimer = null;
    if (this._floodSince !== null && log) {
      const secs = ((this.host.clock.now() - this._floodSince) / 1000).toFixed(1);
      this.host.log('info', `${this._name} (${this.paneId}): its output calmed after ${secs} s of flood (${this.floodCycles} screens taken)`);
    }
    this._floodSince = null;
    this.floodCycles = 0;
  }

  /**
   * The exit guard's marker reached the supervisor: true when it should signal the guard, false
   * when a flood's release did already (tmux would keep a second signal for the next program).
   */
  exitMarker(): boolean {
    this.exitMarkerTimer?.cancel();
    this.exitMarkerTimer = null;
    if (!this.releasedWithoutMarker) return true;
    this.releasedWithoutMarker = false;
    return false;
  }

  /** A %layout-change gave the pane this size: a reflowed screen is captured again. */
  resized(cols: number, rows: number): void {
    if (this._mirror && (this._mirror.cols !== cols || this._mirror.rows !== rows)) this.snapshot();
  }

  // ---- the pane's process --------------------------------------------------------------------

  /** The pane subscription's fields: dead, exit status, in a mode, foreground command. */
  paneChanged(dead: boolean, status: string, inMode: boolean, command: string): void {
    this._inMode = inMode;
    if (command !== this.lastCommand) {
      this.lastCommand = command;
      if (!this._dead) this.scheduleProbe(this.prober.foregroundChanged());
    }
    if (dead !== this._dead) this.setDead(dead, status);
    // tmux can list a pane dead before its exit status (the pty closed before the process was
    // reaped): the subscription's next value brings it
    else if (dead && !this._deadStatus && status) {
      this._deadStatus = status;
      this.host.changed(this);
    }
  }

  /** Whether a mode (copy mode…) is over the pane, as `display -p` just said. */
  modeChanged(inMode: boolean): void {
    this._inMode = inMode;
  }

  /**
   * The pane's program was replaced (`respawn-pane`): a new process, a new owner of the
   * conversation, a new secret. Marked alive here, so the dead → alive change tmux shows later
   * is no second start.
   */
  respawned(secretHash: string, panePid: number): void {
    this._secretHash = secretHash;
    if (panePid) this.panePid = panePid;
    this.setDead(false, '');
  }

  private setDead(dead: boolean, status: string): void {
    this._dead = dead;
    this._deadStatus = status;
    this.host.log('info', `${this._name} (${this.paneId}) ${dead ? `exited (status ${status || '?'})` : 'restarted'}`);
    this.exitMarkerTimer?.cancel();
    this.exitMarkerTimer = null;
    if (!dead) {
      this.releasedWithoutMarker = false;
      this._generation++;
      this._mirror?.clearOsc();
      this.snapshot();
      this.scheduleProbe(this.prober.start());
    } else {
      if (this.probeTimer) {
        this.probeTimer.cancel();
        this.probeTimer = null;
        this.probeAt = null;
      }
      // output tmux dropped for us while the pane was paused (a flood, a release without the
      // marker) reaches no seed once the program is gone: the dead pane's screen is tmux's last
      if (this._floodSince !== null || this.floodPaused || this.pausedForUs || this.releasedWithoutMarker) this.snapshot();
    }
    this.apply(dead ? this._arbiter.processExit() : this._arbiter.processStart());
  }

  // ---- which agent runs in the pane ----------------------------------------------------------

  /** Takes the prober's events and keeps one timer for its next probe. */
  private scheduleProbe(step: ProberStep): void {
    if (!this.probed || this.disposed || this._hibernation) return;
    for (const e of step.events) this.onProberEvent(e);
    if (step.probeAt === this.probeAt && this.probeTimer) return; // the per-output call stays cheap
    this.probeTimer?.cancel();
    this.probeTimer = null;
    this.probeAt = step.probeAt;
    if (step.probeAt === null || this._dead) return;
    // a periodic probe (seconds away) may wait for the grid's step; a probe due soon is exact
    this.probeTimer = afterOrCoarse(this.host.clock, Math.max(0, step.probeAt - this.host.clock.now()), () => {
      this.probeTimer = null;
      this.probeAt = null;
      if (!this.prober.beginProbe()) return this.scheduleProbe(this.prober.step());
      this.host.probe(this.panePid).then(
        (id) => this.scheduleProbe(this.prober.probeResult(id)),
        () => this.scheduleProbe(this.prober.probeFailed()),
      );
    });
  }

  private onProberEvent(e: ProberEvent): void {
    if (e.type === 'agent-start') {
      if (e.agent === this._arbiter.agent) return;
      this.host.log('info', `${this._name}: ${e.agent} is running (${e.why})`);
      this.newAgent(e.agent, true);
      this.scheduleEval();
      this.host.changed(this);
    } else if (e.type === 'agent-exit') {
      if (this._agent === 'unknown') return;
      this.host.log('info', `${this._name}: ${this._agent} left the pane (${e.reason}); it is a terminal again`);
      this.newAgent('unknown', false);
      this.host.changed(this);
    }
  }

  private newAgent(agent: string, grace: boolean): void {
    this._agent = agent;
    this._arbiter = new Arbiter({ agent, clock: this.host.clock.now, idleAfterMs: this.idleAfterMs });
    this._lastDetection = null; // the last agent's, by its manifest
    this._mirror?.clearOsc();
    this.apply(this._arbiter.processStart({ grace }));
  }

  // ---- state ---------------------------------------------------------------------------------

  /**
   * Output is coalesced: the first output after a quiet spell is judged at once (a dialog's
   * light should not wait), a stream of output at most every EVAL_COALESCE_MS. At once is 2 ms
   * later, for the rest of a draw tmux read in parts; `sameTurn` (a small write, parsed already:
   * the whole draw) at the end of this turn, in the wake-up that read it, not one of its own.
   */
  scheduleEval(sameTurn = false): void {
    if (this.evalTimer || this.disposed) return;
    const wait = Math.max(sameTurn ? 0 : 2, this.lastEvalAt + EVAL_COALESCE_MS - this.host.clock.now());
    this.evalTimer = this.host.clock.after(wait, () => {
      this.evalTimer = null;
      this.lastEvalAt = this.host.clock.now();
      this.evaluate();
    });
  }

  private evaluate(): void {
    const mirror = this._mirror;
    if (this._dead || !mirror || this._seeding || this.disposed || this._hibernation) return;
    if (!mirror.isFlushed) {
      void mirror.flushed().then(() => this.scheduleEval());
      return;
    }
    const loaded = this.host.manifest(this._agent);
    if (!loaded) {
      // no manifest knows this program (a manifest of the user's own always wins): the quiet rule
      const snap = mirror.snapshot();
      const input = inputLine(snap);
      this.apply(this._arbiter.quietScreen({ hash: String(mirror.fingerprint()), prompt: input.prompt, why: input.why }));
      return;
    }
    const snap = mirror.snapshot();
    const det = detectSnapshot(loaded, snap);
    if (det.skip) return;
    const wording = integrationFor(this._agent)?.usageLimit;
    const { limit, dialog: limitDialog } = wording ? limitOnScreen(wording, snap.rows, this.host.clock.now()) : { limit: null, dialog: false };
    this._lastDetection = { at: this.host.clock.now(), result: det, manifest: { source: loaded.source, path: loaded.path, version: loaded.version } };
    this.apply(
      this._arbiter.screen({
        state: det.state,
        visibleIdle: det.visibleIdle,
        visibleBlocker: det.visibleBlocker,
        visibleWorking: det.visibleWorking,
        skipStateUpdate: det.skipStateUpdate,
        hash: String(mirror.fingerprint()),
        hasIdleRules: det.hasIdleRules,
        fallback: !det.blank && det.fallbackReason !== null,
        rule: det.rule ?? undefined,
        limit,
        limitDialog,
      }),
    );
  }

  /** The keys that close the agent's own dialog about its limit when its screen shows it, else null. */
  limitDialogKeys(): readonly string[] | null {
    const wording = integrationFor(this._agent)?.usageLimit;
    const rows = this._mirror?.snapshot().rows;
    return wording?.dialog && rows && limitDialogShown(wording, rows) ? wording.dialog.dismissKeys : null;
  }

  /** A hook event, mapped to a fact. */
  hookFact(fact: HookFact): void {
    // a turn that failed with the agent's words for its usage limit (Claude's StopFailure)
    const wording = integrationFor(this._agent)?.usageLimit;
    if (fact.kind === 'turn-end' && fact.failure?.message && wording && !fact.limit) {
      const l = readLimitText(wording, fact.failure.message, this.host.clock.now());
      if (l) fact = { ...fact, limit: l };
    }
    this.apply(this._arbiter.hookFact(fact));
  }

  /** The agent's own status file changed (supervisor/agent-status.ts); null: it is gone. */
  agentStatus(status: AgentStatus | null): void {
    if (this._dead) return;
    this.apply(this._arbiter.agentStatus(status));
  }

  /** The user has looked at the window (docs/state-rules.md: seen). */
  seen(): void {
    this.apply(this._arbiter.seen());
  }

  /** The conversation the launch named (`--resume ID`), or one guessed for it. */
  setConversation(id: string, from: 'launch' | 'guess'): void {
    this.apply(this._arbiter.setLaunchConversation(id, from));
  }

  setNote(note: string): void {
    this._note = note;
  }

  /** Takes the arbiter's answer: the state, and the one timer for its next deadline. `restored`: facts a previous supervisor kept. */
  apply(update: ArbiterUpdate, restored = false): void {
    // hibernated: the state stays until it wakes (what its tiny program does is not the agent)
    if (this.disposed || this._hibernation) return;
    this.stateTimer?.cancel();
    this.stateTimer = null;
    if (update.deadline !== null) {
      // a deadline seconds away (the quiet rule's idle, 3 s after a line) may be a grid step
      // late: a hundred windows' ticks then share wake-ups, and the lights they change go with them
      this.stateTimer = afterOrCoarse(this.host.clock, Math.max(0, update.deadline - this.host.clock.now()) + 1, () => {
        this.stateTimer = null;
        this.apply(this._arbiter.tick());
      });
    }
    const v = update.view;
    this._background = v.background;
    const q = v.authority === 'screen' ? v.quiet : null;
    const unknowable = q !== null && (q.verdict === 'off' || q.verdict === 'unsure') ? q.why : null;
    // an unknown that nerdr can no longer resolve is news to a queue waiting on it, like a new state
    const becameUnknowable = unknowable !== null && this._unknowable === null;
    this._unknowable = unknowable;
    const stateChanged = this._state !== v.state;
    if (stateChanged) {
      this._state = v.state;
      this._stateSince = this.host.clock.now();
    }
    this.host.settled(this, { stateChanged: stateChanged || becameUnknowable, change: update.change !== null, ...(update.limitLapsed ? { limitLapsed: update.limitLapsed } : {}), restored });
  }

  /** Ends every timer and the mirror; later lines for the pane are ignored. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.evalTimer?.cancel();
    this.stateTimer?.cancel();
    this.probeTimer?.cancel();
    this.exitMarkerTimer?.cancel();
    this.evalTimer = this.stateTimer = this.probeTimer = this.exitMarkerTimer = null;
    this.endFlood(false);
    this._mirror?.dispose();
    this.endScreenWaits();
  }

  private endScreenWaits(): void {
    for (const w of this.screenWaiters.splice(0)) w();
  }
}
