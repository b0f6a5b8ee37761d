import { describe, expect, it } from 'vitest';
import { DISMISSED_WORK_MS, DONE_IDLE_MS, DONE_UNCHANGED_MS, FALLBACK_IDLE_MS, PENDING_IDLE_HOLD_MS, STARTUP_GRACE_MS } from '../../../src/state/index.js';
import { DIALOG, IDLE_PROMPT, WORKING, rig } from './helpers.js';

describe('screen path timers', () => {
  it('startup grace: nothing is read for 3 s, then the first idle is idle (not done)', () => {
    const r = rig();
    r.start();
    r.screen(IDLE_PROMPT, 'prompt');
    expect(r.arb.view().state).toBe('unknown');
    expect(r.arb.nextDeadline()).toBe(r.clock.t + STARTUP_GRACE_MS);
    r.wait(STARTUP_GRACE_MS - 1);
    expect(r.arb.view().state).toBe('unknown');
    r.wait(1);
    expect(r.arb.view().state).toBe('idle');
    expect(r.states).toEqual(['unknown', 'idle']);
  });

  it('working → done after the idle screen is unchanged for 2.5 s; seen → idle', () => {
    const r = rig();
    r.start(false);
    r.screen(WORKING, 'w1');
    expect(r.arb.view().state).toBe('working');
    r.screen(IDLE_PROMPT, 'idle');
    r.wait(DONE_UNCHANGED_MS - 1);
    expect(r.arb.view().state).toBe('working');
    r.wait(1);
    expect(r.arb.view().state).toBe('done');
    expect(r.arb.seen().view.state).toBe('idle');
  });

  it('working → done after 20 s of an idle but changing screen', () => {
    const r = rig();
    r.start(false);
    r.screen(WORKING, 'w');
    r.screen(IDLE_PROMPT, 'i0');
    for (let i = 1; i < 10; i++) { r.wait(2000); r.screen(IDLE_PROMPT, 'i' + i); }
    expect(r.arb.view().state).toBe('working');
    r.wait(DONE_IDLE_MS - 18000);
    expect(r.arb.view().state).toBe('done');
  });

  it('an unknown screen leaves a working agent working', () => {
    const r = rig();
    r.start(false);
    r.screen(WORKING, 'w');
    r.screen({ state: 'unknown' }, 'u');
    r.wait(60000);
    expect(r.arb.view().state).toBe('working');
  });

  it('agent without idle rules: an unmatched screen unchanged for 6 s is idle', () => {
    const r = rig({ agent: 'opencode', hasIdleRules: false });
    r.start(false);
    r.screen(WORKING, 'w');
    r.screen({ state: 'idle', fallback: true }, 'f1');
    r.wait(5000);
    r.screen({ state: 'idle', fallback: true }, 'f2'); // still changing
    r.wait(FALLBACK_IDLE_MS - 1);
    expect(r.arb.view().state).toBe('working');
    r.wait(1);
    expect(r.arb.view().state).toBe('done');
  });

  it('pending-idle hold: unknown → idle without visible evidence waits 700 ms; visible idle is immediate', () => {
    const r = rig();
    r.start(false);
    r.screen({ state: 'idle' }, 'weak');
    expect(r.arb.view().state).toBe('unknown');
    r.wait(PENDING_IDLE_HOLD_MS);
    expect(r.arb.view().state).toBe('idle');
    const r2 = rig();
    r2.start(false);
    r2.screen(IDLE_PROMPT, 'p');
    expect(r2.arb.view().state).toBe('idle');
  });

  it('a visible dialog is blocked at once, and skip_state_update evaluations change nothing', () => {
    const r = rig();
    r.start(false);
    r.screen(WORKING, 'w');
    r.screen(DIALOG, 'd');
    expect(r.arb.view().state).toBe('blocked');
    r.screen({ state: 'idle', skipStateUpdate: true }, 'viewer');
    r.wait(30000);
    expect(r.arb.view().state).toBe('blocked');
  });

  it('a dialog that gives way straight to an idle screen was dismissed: idle, not done', () => {
    const r = rig();
    r.start(false);
    r.screen(WORKING, 'w');
    r.screen(DIALOG, 'd');
    expect(r.arb.view().state).toBe('blocked');
    r.screen(IDLE_PROMPT, 'after-deny');
    r.wait(DONE_IDLE_MS + 1);
    expect(r.arb.view().state).toBe('idle');
    expect(r.states).not.toContain('done');
    // approving it makes the agent work for a while first, and that turn's end is a completion
    r.screen(DIALOG, 'd2');
    r.screen(WORKING, 'w2');
    r.wait(DISMISSED_WORK_MS + 1);
    r.screen(IDLE_PROMPT, 'finished');
    r.wait(DONE_UNCHANGED_MS);
    expect(r.arb.view().state).toBe('done');
  });

  it('a dialog dismissed through a working frame (no hook) is not a completion either', () => {
    const r = rig();
    r.start(false);
    r.screen(WORKING, 'w');
    r.screen(DIALOG, 'd');
    r.screen(WORKING, 'cancelling');
    r.wait(DISMISSED_WORK_MS - 400);
    r.screen(IDLE_PROMPT, 'after-deny');
    r.wait(DONE_IDLE_MS + 1);
    expect(r.arb.view().state).toBe('idle');
    expect(r.states).not.toContain('done');
  });

  it('after a dialog, a hook that reports work makes the next idle a completion, however soon', () => {
    const r = rig();
    r.start(false);
    r.screen(WORKING, 'w');
    r.screen(DIALOG, 'd');
    r.screen(WORKING, 'running');
    r.hook('tool');
    r.hook('turn-end', { backgroundTasks: 0 });
    r.screen(IDLE_PROMPT, 'finished');
    r.wait(DONE_UNCHANGED_MS);
    expect(r.arb.view().state).toBe('done');
  });

  it('process exit → exited; restart → unknown again with a new grace', () => {
    const r = rig();
    r.start(false);
    r.screen(WORKING, 'w');
    expect(r.arb.processExit().view.state).toBe('exited');
    expect(r.arb.processStart().view.state).toBe('unknown');
  });

  it('returns the next deadline so one supervisor timer is enough', () => {
    const r = rig();
    r.start(false);
    r.screen(WORKING, 'w');
    const u = r.screen(IDLE_PROMPT, 'i');
    expect(u.deadline).toBe(r.clock.t + DONE_UNCHANGED_MS);
    expect(u.view.pending.map((p) => p.name)).toContain('done-confirm');
  });
});
