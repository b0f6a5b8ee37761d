// StallWatch: when the control client nudges tmux (pure logic, injected clock).
import { describe, expect, it } from 'vitest';
import { StallWatch } from '../../../src/tmux/stall.js';

class FakeClock {
  t = 1_000_000;
  now = (): number => this.t;
}

/** Drives a watch like ControlClient does: one timer at each returned time. */
function rig(quietMs = 1000) {
  const clock = new FakeClock();
  const watch = new StallWatch(clock.now, quietMs);
  let owed = 0;
  let nudgeOwed = false;
  const nudges: number[] = [];
  /** Advance to the next look (if any) and take it. */
  const look = (): { nudge: boolean; next: number | null } | null => {
    const at = watch.nextLook;
    if (at === null) return null;
    clock.t = Math.max(clock.t, at);
    const r = watch.look(owed, nudgeOwed);
    if (r.nudge) {
      nudges.push(clock.t);
      owed++;
      nudgeOwed = true;
    }
    return r;
  };
  const reply = (): void => {
    owed--;
    nudgeOwed = false;
    watch.heardLine(false);
  };
  return {
    clock,
    watch,
    nudges,
    look,
    reply,
    send: () => {
      owed++;
      return watch.sent();
    },
    answer: () => {
      owed--;
      watch.heardLine(false);
    },
  };
}

describe('StallWatch', () => {
  it('is idle until something happens, and the first line or command schedules one look', () => {
    const r = rig();
    expect(r.watch.nextLook).toBeNull();
    expect(r.look()).toBeNull();
    expect(r.watch.heardLine(true)).toBe(r.clock.t + 1000);
    // more lines do not reschedule (the per-line call only sets flags)
    r.clock.t += 300;
    expect(r.watch.heardLine(true)).toBeNull();
    expect(r.watch.nextLook).toBe(r.clock.t - 300 + 1000);
  });

  it('output that stops: one nudge after a whole quiet interval, then idle once it is answered', () => {
    const r = rig();
    const t0 = r.clock.t;
    r.watch.heardLine(true);
    // output keeps coming: every look sees it and looks again a second later
    for (let i = 1; i <= 3; i++) {
      r.clock.t = t0 + i * 1000 - 1;
      r.watch.heardLine(true);
      expect(r.look()).toEqual({ nudge: false, next: t0 + i * 1000 + 1000 });
    }
    // silence for the next whole interval: tmux may hold a %pause it queued
    expect(r.look()).toEqual({ nudge: true, next: t0 + 5000 });
    expect(r.nudges).toEqual([t0 + 4000]);
    // the nudge's empty reply arrives; the look after it sees that line, the next one stops
    r.reply();
    expect(r.look()).toEqual({ nudge: false, next: t0 + 6000 });
    expect(r.look()).toEqual({ nudge: false, next: null });
    expect(r.watch.nextLook).toBeNull();
    expect(r.nudges).toHaveLength(1);
  });

  it('a reply that comes in time needs no nudge', () => {
    const r = rig();
    r.send();
    r.clock.t += 200;
    r.answer();
    expect(r.look()).toEqual({ nudge: false, next: r.clock.t + 1000 });
    expect(r.look()).toEqual({ nudge: false, next: null });
    expect(r.nudges).toEqual([]);
  });

  it('a reply owed through a whole silent interval: one nudge, and no second while it is unanswered', () => {
    const r = rig();
    const t0 = r.clock.t;
    r.send();
    expect(r.look()).toEqual({ nudge: true, next: t0 + 2000 });
    // tmux stays silent: keep looking, but one nudge at a time is enough
    expect(r.look()).toEqual({ nudge: false, next: t0 + 3000 });
    expect(r.look()).toEqual({ nudge: false, next: t0 + 4000 });
    expect(r.nudges).toEqual([t0 + 1000]);
    // tmux writes what it held: the nudge's reply, then the owed one
    r.reply();
    r.answer();
    expect(r.look()).toEqual({ nudge: false, next: t0 + 5000 });
    expect(r.look()).toEqual({ nudge: false, next: null });
  });

  it('notifications and replies alone keep it looking but never cause a nudge', () => {
    const r = rig();
    r.watch.heardLine(false); // e.g. %subscription-changed
    expect(r.look()).toEqual({ nudge: false, next: r.clock.t + 1000 });
    expect(r.look()).toEqual({ nudge: false, next: null });
    expect(r.nudges).toEqual([]);
  });

  it('output after a nudge is a new burst: its end is nudged again', () => {
    const r = rig();
    r.watch.heardLine(true);
    r.look(); // sees the output
    expect(r.look()?.nudge).toBe(true);
    r.reply();
    r.watch.heardLine(true); // more output
    expect(r.look()?.nudge).toBe(false);
    expect(r.look()?.nudge).toBe(true);
    expect(r.nudges).toHaveLength(2);
  });

  it('a stalled event loop: the first late look after a stop sees the output from before it', () => {
    const r = rig();
    const t0 = r.clock.t;
    r.watch.heardLine(true);
    // stopped for 8 s: the look runs late, sees the earlier output, and looks again a second on
    r.clock.t = t0 + 9000;
    expect(r.watch.look(0, false)).toEqual({ nudge: false, next: t0 + 10_000 });
    // the backlog read after the stop, then silence: nudge
    r.watch.heardLine(true);
    expect(r.look()).toEqual({ nudge: false, next: t0 + 11_000 });
    expect(r.look()).toEqual({ nudge: true, next: t0 + 12_000 });
  });

  it('stop() ends the watch', () => {
    const r = rig();
    r.watch.heardLine(true);
    r.watch.stop();
    expect(r.watch.nextLook).toBeNull();
    expect(r.look()).toBeNull();
  });
});
