// The arbiter and usage limits (docs/lifecycle.md): `limited` with the reset time, from a
// hook's failed turn or a sighting on screen; idle once the reset passes (handed out once, for
// `[agents] on_limit = "resume"`), ended early by new work; kept across a supervisor restart.

import { describe, expect, it } from 'vitest';
import { IDLE_PROMPT, WORKING, rig } from './helpers.js';
import type { LimitSeen } from '../../../src/state/index.js';

const HOUR = 3_600_000;
const words = "You've hit your session limit · resets 3pm (UTC)";

function limitedByHook() {
  const r = rig();
  r.start(false);
  r.screen(IDLE_PROMPT, 'a');
  r.hook('prompt-submit');
  const resetAt = r.clock.t + 2 * HOUR;
  const u = r.hook('turn-end', { error: true, limit: { words, resetAt, resetText: '3pm (UTC)' } });
  return { r, u, resetAt };
}

describe('limited', () => {
  it('a turn that ended at the limit is limited, with the words and the reset; idle (not done) once it resets, handed out once', () => {
    const { r, u, resetAt } = limitedByHook();
    expect(u.view.state).toBe('limited');
    expect(u.view.authority).toBe('hook');
    expect(u.view.limit).toMatchObject({ words, resetAt, from: 'hook' });
    expect(u.view.reason).toContain(new Date(resetAt).toISOString());
    expect(u.deadline).toBe(resetAt);
    expect(u.view.pending.map((p) => p.name)).toContain('limit-reset');
    // the idle screen changes nothing meanwhile
    expect(r.screen(IDLE_PROMPT, 'b').view.state).toBe('limited');
    r.clock.t = resetAt - 1;
    expect(r.arb.tick().limitLapsed).toBeUndefined();
    r.clock.t = resetAt;
    const t = r.arb.tick();
    r.record(t.view.state);
    expect(t.view.state).toBe('idle');
    expect(t.view.limit).toBeNull();
    expect(t.limitLapsed).toEqual({ words, resetAt });
    expect(t.change?.from).toBe('limited');
    expect(r.arb.tick().limitLapsed).toBeUndefined();
    expect(r.states).toEqual(['unknown', 'idle', 'working', 'limited', 'idle']);
  });

  it('new work before the reset ends it (prompt, tool, the status file busy): no lapse is handed out', () => {
    for (const end of ['prompt', 'tool', 'busy'] as const) {
      const { r, resetAt } = limitedByHook();
      if (end === 'busy') r.arb.agentStatus({ status: 'busy', updatedAt: 1 });
      else r.hook(end === 'prompt' ? 'prompt-submit' : 'tool');
      // the status file alone says no more than that (the prompt's hook follows it)
      expect(r.arb.view().state, end).toBe(end === 'busy' ? 'idle' : 'working');
      expect(r.arb.view().limit).toBeNull();
      r.clock.t = resetAt + 1;
      expect(r.arb.tick().limitLapsed, end).toBeUndefined();
    }
  });

  it("a subagent's tool does not end it", () => {
    const { r } = limitedByHook();
    r.hook('tool', { subagent: true });
    expect(r.arb.view().state).toBe('limited');
  });

  it('an unknown reset: limited until the agent works again', () => {
    const r = rig();
    r.start(false);
    r.hook('prompt-submit');
    const u = r.hook('turn-end', { error: true, limit: { words: "You've hit your usage limit · contact your admin", resetAt: null, resetText: null } });
    expect(u.view.state).toBe('limited');
    expect(u.deadline).toBeNull();
    expect(u.view.reason).toContain('unknown');
    r.wait(48 * HOUR);
    expect(r.arb.view().state).toBe('limited');
    r.hook('prompt-submit');
    expect(r.arb.view().state).toBe('working');
  });

  it('a dialog on screen and reports still outrank it', () => {
    const { r } = limitedByHook();
    r.screen({ state: 'blocked', visibleBlocker: true }, 'dlg');
    expect(r.arb.view().state).toBe('blocked');
    r.screen(IDLE_PROMPT, 'c');
    expect(r.arb.view().state).toBe('limited');
    r.arb.report({ source: 'custom:x', agent: 'claude', state: 'working' });
    expect(r.arb.view().state).toBe('working');
  });
});

describe('a limit on screen (agents without a hook for it: Codex)', () => {
  const seen = (resetAt: number | null, key = 'k1'): LimitSeen => ({ words: "You've hit your usage limit. Try again at 9:05 PM.", resetAt, resetText: '9:05 PM', key });

  it('a sighting on an idle screen is limited; seen again it is the same one, not read anew', () => {
    const r = rig({ agent: 'codex' });
    r.start(false);
    r.screen(IDLE_PROMPT, 'a');
    r.screen(WORKING, 'w');
    const resetAt = r.clock.t + HOUR;
    const u = r.screen({ ...IDLE_PROMPT, limit: seen(resetAt) }, 'l');
    expect(u.view.state).toBe('limited');
    expect(u.view.authority).toBe('screen');
    // the same sighting with another reading of its time (read again later) changes nothing
    r.clock.t += 1000;
    expect(r.screen({ ...IDLE_PROMPT, limit: seen(resetAt + 24 * HOUR) }, 'l2').view.limit?.resetAt).toBe(resetAt);
    r.wait(HOUR);
    expect(r.arb.view().state).toBe('idle');
    // still on screen after the reset: not a new limit
    expect(r.screen({ ...IDLE_PROMPT, limit: seen(resetAt + 24 * HOUR) }, 'l3').view.state).toBe('idle');
    // another sighting (a second message): limited again
    expect(r.screen({ ...IDLE_PROMPT, limit: seen(r.clock.t + HOUR, 'k2') }, 'l4').view.state).toBe('limited');
  });

  it('work on screen (new output) ends it; the old words still on screen do not bring it back', () => {
    const r = rig({ agent: 'codex' });
    r.start(false);
    r.screen({ ...IDLE_PROMPT, limit: seen(r.clock.t + HOUR) }, 'l');
    expect(r.arb.view().state).toBe('limited');
    r.clock.t += 500;
    r.screen({ ...WORKING, limit: seen(r.clock.t + HOUR) }, 'w1');
    expect(r.arb.view().state).toBe('working');
    r.screen({ ...IDLE_PROMPT, limit: seen(r.clock.t + HOUR) }, 'i');
    r.wait(5000);
    expect(r.arb.view().state).not.toBe('limited');
  });

  it('a sighting first seen while the screen still shows work is taken on the idle screen after', () => {
    const r = rig({ agent: 'codex' });
    r.start(false);
    r.screen({ ...WORKING, limit: seen(r.clock.t + HOUR) }, 'w');
    expect(r.arb.view().state).toBe('working');
    r.screen({ ...IDLE_PROMPT, limit: seen(r.clock.t + HOUR) }, 'i');
    expect(r.arb.view().state).toBe('limited');
  });

  it('an unknown reset lasts while the screen shows it', () => {
    const r = rig({ agent: 'codex' });
    r.start(false);
    r.screen({ ...IDLE_PROMPT, limit: seen(null) }, 'l');
    expect(r.arb.view().state).toBe('limited');
    r.screen({ ...IDLE_PROMPT, limit: null }, 'cleared');
    expect(r.arb.view().state).toBe('idle');
  });
});

describe("the agent's own dialog about its limit (Claude's \"Stop and wait for limit to reset\")", () => {
  const OPTIONS = { state: 'blocked' as const, visibleBlocker: true, limitDialog: true };

  it('is the limit, not a question; after the reset it stays limited until it closes, then idle (not done, no blocked on the way)', () => {
    const { r, resetAt } = limitedByHook();
    expect(r.screen(OPTIONS, 'opts').view.state).toBe('limited');
    expect(r.arb.view().reason).not.toMatch(/a dialog is visible/);
    r.clock.t = resetAt;
    const t = r.arb.tick();
    r.record(t.view.state);
    expect(t.limitLapsed).toEqual({ words, resetAt });
    expect(t.view.state).toBe('limited');
    expect(t.view.reason).toMatch(/dialog about it is still open/);
    expect(r.arb.tick().limitLapsed).toBeUndefined();
    // kept across a restart as it is: no second lapse
    const n = rig();
    n.clock.t = r.clock.t;
    n.start(false);
    n.screen(OPTIONS, 'opts');
    const back = n.arb.restoreFacts(JSON.parse(JSON.stringify(r.arb.facts())));
    expect(back.view.state).toBe('limited');
    expect(back.limitLapsed).toBeUndefined();
    // closed (Esc): idle, not done
    r.screen(IDLE_PROMPT, 'closed');
    expect(r.arb.view().state).toBe('idle');
    expect(r.states).toEqual(['unknown', 'idle', 'working', 'limited', 'idle']);
  });

  it('another dialog while limited is a question: blocked', () => {
    const { r } = limitedByHook();
    expect(r.screen({ state: 'blocked', visibleBlocker: true }, 'other').view.state).toBe('blocked');
  });
});

describe('across a supervisor restart', () => {
  it('the reset time is kept; a reset that passed while no supervisor ran is handed out by the next', () => {
    const { r, resetAt } = limitedByHook();
    const facts = JSON.parse(JSON.stringify(r.arb.facts()));
    expect(facts.limit).toMatchObject({ words, resetAt, from: 'hook' });

    const n = rig();
    n.clock.t = r.clock.t + HOUR;
    n.start(false);
    const back = n.arb.restoreFacts(facts);
    expect(back.view.state).toBe('limited');
    expect(back.view.limit?.resetAt).toBe(resetAt);
    expect(back.deadline).toBe(resetAt);

    const late = rig();
    late.clock.t = resetAt + HOUR;
    late.start(false);
    const u = late.arb.restoreFacts(JSON.parse(JSON.stringify(facts)));
    expect(u.view.state).not.toBe('limited');
    expect(u.limitLapsed).toEqual({ words, resetAt });
  });

  it('the last sighting is kept: the same words on screen are not a new limit after a restart', () => {
    const r = rig({ agent: 'codex' });
    r.start(false);
    const l: LimitSeen = { words: 'w', resetAt: r.clock.t + HOUR, resetText: '9:05 PM', key: 'k' };
    r.screen({ ...IDLE_PROMPT, limit: l }, 'a');
    r.wait(HOUR);
    expect(r.arb.view().state).toBe('idle');
    const n = rig({ agent: 'codex' });
    n.clock.t = r.clock.t;
    n.start(false);
    n.arb.restoreFacts(JSON.parse(JSON.stringify(r.arb.facts())));
    expect(n.screen({ ...IDLE_PROMPT, limit: { ...l, resetAt: n.clock.t + 24 * HOUR } }, 'a').view.state).toBe('idle');
  });

  it('malformed saved limits are ignored', () => {
    const n = rig();
    n.start(false);
    const u = n.arb.restoreFacts({ v: 1, subagents: 0, backgroundTasks: 0, seen: true, limit: { words: 'x', resetAt: 'soon' as unknown as number, resetText: null, from: 'hook' } });
    expect(u.view.state).not.toBe('limited');
  });
});
