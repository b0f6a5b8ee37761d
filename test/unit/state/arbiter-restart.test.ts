// A supervisor that dies and comes back (tmux revives it) takes the arbiter's facts back from the
// window: a turn that was under way, or had ended unseen, must still end done, never idle.

import { describe, expect, it } from 'vitest';
import { IDLE_PROMPT, WORKING, rig } from './helpers.js';

/** What the next supervisor does for a running window: process start without grace, the facts, the screen. */
function revive(agent: string, facts: ReturnType<ReturnType<typeof rig>['arb']['facts']>) {
  const r = rig({ agent });
  r.start(false);
  r.record(r.arb.restoreFacts(JSON.parse(JSON.stringify(facts))).view.state);
  return r;
}

/** An agent idle a while, then working: the turn every case starts from. */
function working(agent: string) {
  const r = rig({ agent });
  r.start(false);
  r.screen(IDLE_PROMPT, 'a');
  r.wait(5000);
  r.screen(WORKING, 'b');
  r.wait(300);
  return r;
}

describe.each(['codex', 'claude'])('%s across a supervisor restart', (agent) => {
  it('a turn that ended while no supervisor ran is done after revival, then idle once seen', () => {
    const r = working(agent);
    r.screen(WORKING, 'c');
    expect(r.arb.view().state).toBe('working');
    const facts = r.arb.facts();
    expect(facts.active).toBe(true);
    // when the turn began is kept: a message typed before it was taken (src/supervisor/messages.ts)
    expect(facts.turnAt).toBe(r.arb.lastTurnAt);
    expect(facts.turnAt).not.toBeNull();

    // the agent finished while no supervisor ran: the new one first sees an idle screen
    const n = revive(agent, facts);
    expect(n.arb.lastTurnAt).toBe(facts.turnAt);
    n.screen(IDLE_PROMPT, 'd');
    n.wait(10_000);
    expect(n.arb.view().state).toBe('done');
    n.record(n.arb.seen().view.state);
    expect(n.arb.view().state).toBe('idle');
  });

  it('done and not yet seen stays done across a restart', () => {
    const r = working(agent);
    r.screen(IDLE_PROMPT, 'c');
    r.wait(10_000);
    expect(r.arb.view().state).toBe('done');
    const n = revive(agent, r.arb.facts());
    n.screen(IDLE_PROMPT, 'c');
    n.wait(10_000);
    expect(n.arb.view().state).toBe('done');
  });

  it('idle and seen stays idle: a restart is no completion', () => {
    const r = rig({ agent });
    r.start(false);
    r.screen(IDLE_PROMPT, 'a');
    r.wait(10_000);
    expect(r.arb.view().state).toBe('idle');
    const facts = r.arb.facts();
    expect(facts.active).toBe(false);
    const n = revive(agent, facts);
    n.screen(IDLE_PROMPT, 'a');
    n.wait(10_000);
    expect(n.states).not.toContain('done');
    expect(n.arb.view().state).toBe('idle');
  });
});
