// A pane that floods (a build log, `cat` of a big file): its bytes are not parsed. Parsing them
// in the mirror costs the supervisor a core at 30–50 MB/s, and tmux writing them to the control
// client costs tmux as much again as reading them from the pty (docs/performance.md, "The flood
// ratio"), which slows the flooding program itself. Detection needs the screen, not every byte
// of the way to it, and tmux holds the screen: so once a pane has sent FLOOD_BYTES within
// FLOOD_WINDOW_MS, the supervisor pauses that pane's output for its own control client
// (`refresh-client -A %P:pause`: tmux drops what it queued of it and sends no more, and reads
// the pane on for the user's clients), and FLOOD_PAUSE_MS later continues it on the line that
// takes a fresh snapshot of the screen, as after tmux's own pause-after (docs/mirror.md,
// "Floods"). If the pane still floods, the gate trips again within a few ms.
// This file is the counting; src/supervisor/agent.ts does the rest.

/**
 * Bytes within FLOOD_WINDOW_MS that make a flood: 1.3 MB/s, several times an agent's own
 * drawing (a full redraw of a 120x40 screen is 10–20 KB). Not higher: a pane's rate is what
 * tmux and the supervisor let through, and two panes flooding at once on two loaded cores came
 * to 3.5 MB/s each (measured), so a 5 MB/s limit never saw them.
 */
export const FLOOD_BYTES = 128 * 1024;
export const FLOOD_WINDOW_MS = 100;
/**
 * The same within a flood, after the screen was taken: tmux sends the pane from then on at its
 * full rate until the pause, and every byte of that costs tmux and us; 32 KiB is still more
 * than a full redraw of a 120x40 screen, so a flood that ended is not taken for one going on.
 */
export const FLOOD_AGAIN_BYTES = 32 * 1024;
/** How long the output stays paused before the screen is taken again (the mirror's staleness). */
export const FLOOD_PAUSE_MS = 250;
/** A flood is over once its pane has gone this long, output on, without tripping the gate. */
export const FLOOD_CALM_MS = 1000;

export class FloodGate {
  private windowStart = Number.NEGATIVE_INFINITY;
  private bytes = 0;

  constructor(
    private readonly limit = FLOOD_BYTES,
    private readonly againLimit = FLOOD_AGAIN_BYTES,
    private readonly windowMs = FLOOD_WINDOW_MS,
  ) {}

  /**
   * `n` bytes came at `now`: true when the current window now holds the limit or more (the
   * lower one when `flooding`: the pane flooded a moment ago).
   */
  feed(n: number, now: number, flooding = false): boolean {
    if (now - this.windowStart >= this.windowMs) {
      this.windowStart = now;
      this.bytes = 0;
    }
    this.bytes += n;
    return this.bytes >= (flooding ? this.againLimit : this.limit);
  }

  /** Start counting afresh (the output was paused: what came before says nothing of what follows). */
  reset(): void {
    this.windowStart = Number.NEGATIVE_INFINITY;
    this.bytes = 0;
  }
}
