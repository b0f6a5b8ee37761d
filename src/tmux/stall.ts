// When to nudge tmux: pure logic with an injected clock, driven by ControlClient.
//
// tmux can hold lines it owes a control client without ever writing them. A client that fell
// behind (stopped, or too slow) has pane output queued in tmux; when tmux finally gets to write
// it, the oldest block is older than pause-after, so tmux pauses the pane and queues a
// `%pause %P` line. It does that inside its write callback (control_write_pending →
// control_check_age), and when the callback ends with nothing in its buffer it stops waiting to
// write (bufferevent_disable EV_WRITE), whatever lines are still queued: the `%pause` lines of
// the panes it paused and every reply behind them. A paused pane's output is dropped, so nothing
// new arrives to wake the writer; only the next line we send does (measured on 3.2a, 3.3a and
// 3.7c with two panes flooding while the reader stopped for 3 s: the `%pause` lines came only
// with the reply to a command sent 6 s later).
//
// So when tmux goes silent right after output, or while it owes a reply, send it one harmless
// command: reading it makes tmux write everything it holds.

export interface StallLook {
  /** Send one no-op command now. */
  nudge: boolean;
  /** When to look again (the clock's time), or null: nothing to watch. */
  next: number | null;
}

export class StallWatch {
  /** A line came since the last look. */
  private heard = false;
  /** Pane output came since the last nudge. */
  private flowed = false;
  private lookAt: number | null = null;

  constructor(
    private readonly clock: () => number,
    /** How long tmux must be silent before a nudge. */
    readonly quietMs = 1000,
  ) {}

  /** The time of the next look, or null when none is scheduled. */
  get nextLook(): number | null {
    return this.lookAt;
  }

  /**
   * A line from tmux: pane output (`output`), or a notification or reply. Called for every
   * line, so it only sets flags; returns the time of the first look when none is scheduled.
   */
  heardLine(output: boolean): number | null {
    this.heard = true;
    if (output) this.flowed = true;
    return this.lookAt === null ? this.start() : null;
  }

  /** A command line went out: its reply is owed. Returns the time of the first look when none is scheduled. */
  sent(): number | null {
    return this.lookAt === null ? this.start() : null;
  }

  /**
   * The look scheduled at `nextLook`. `owed`: replies tmux still owes us; `nudgeOwed`: one of
   * them answers our last nudge (one nudge at a time is enough: reading it makes tmux write).
   */
  look(owed: number, nudgeOwed: boolean): StallLook {
    const now = this.clock();
    if (this.heard) {
      // tmux is writing; a silence starts being measured from here
      this.heard = false;
      this.lookAt = now + this.quietMs;
      return { nudge: false, next: this.lookAt };
    }
    // silent for a whole interval: after output, or with a reply owed, tmux may hold lines
    const nudge = !nudgeOwed && (this.flowed || owed > 0);
    this.flowed = false;
    this.lookAt = nudge || owed > 0 ? now + this.quietMs : null;
    return { nudge, next: this.lookAt };
  }

  /** Stop watching (the client closed). */
  stop(): void {
    this.lookAt = null;
    this.heard = false;
    this.flowed = false;
  }

  private start(): number {
    this.lookAt = this.clock() + this.quietMs;
    return this.lookAt;
  }
}
