import { Arbiter, type ArbiterOptions, type ScreenEvaluation } from '../../../src/state/index.js';
import type { HookFact } from '../../../src/integrations/events/index.js';

export class FakeClock {
  t: number;
  constructor(start = 1_000_000) { this.t = start; }
  now = (): number => this.t;
  advance(ms: number): void { this.t += ms; }
}

/** Drive an arbiter like the supervisor would: one timer, fired at each returned deadline. */
export function rig(opts: Partial<ArbiterOptions> = {}) {
  const clock = new FakeClock();
  const arb = new Arbiter({ agent: 'claude', clock: clock.now, ...opts });
  const states: string[] = [];
  const record = (s: string) => { if (states[states.length - 1] !== s) states.push(s); };
  record(arb.view().state);
  /** Advance time, firing tick() at every deadline on the way. */
  const wait = (ms: number): void => {
    const end = clock.t + ms;
    for (;;) {
      const d = arb.nextDeadline();
      if (d === null || d > end) break;
      clock.t = Math.max(clock.t, d);
      record(arb.tick().view.state);
    }
    clock.t = end;
    record(arb.tick().view.state);
  };
  const screen = (s: Partial<ScreenEvaluation> & { state: ScreenEvaluation['state'] }, hash = 'h' + Math.random()) => {
    const u = arb.screen({ visibleIdle: false, visibleBlocker: false, visibleWorking: false, skipStateUpdate: false, hash, ...s });
    record(u.view.state);
    return u;
  };
  const hook = (kind: HookFact['kind'], extra: Partial<HookFact> = {}) => {
    const u = arb.hookFact({ kind, agent: 'claude', event: kind, ...extra });
    record(u.view.state);
    return u;
  };
  const start = (grace = true) => { const u = arb.processStart({ grace }); record(u.view.state); return u; };
  return { clock, arb, states, wait, screen, hook, start, record };
}

export const IDLE_PROMPT = { state: 'idle' as const, visibleIdle: true };
export const WORKING = { state: 'working' as const };
export const DIALOG = { state: 'blocked' as const, visibleBlocker: true };
