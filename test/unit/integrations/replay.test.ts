// Replay of the recorded hook fixtures through mapping + arbiter.
//
// File format: one JSON object per line, in the order things happened. Hook payloads carry no time;
// harness marks ({"harness_mark", "t"}) carry an ISO time. Clock used here: a mark's own time; the
// k-th hook after a mark gets mark time + 100 ms·k (lines before the first mark: first mark − 2 s + …).
// The process is started 5 s before the first line (so the startup grace is over).
//
// The fixtures record only hooks. The arbiter also reads the screen, and some transitions (deny with
// Esc, interrupt) have no hook at all, so the replay adds what the screen showed, derived from what
// happened: a prompt → working screen; a permission/question → the dialog (visible blocker); turn end →
// the idle prompt (visible idle); marks "approved"/"answered" → working; "denied"/"interrupt" → idle
// prompt; "exit" → process exit after SessionEnd; "resume" → process start + idle prompt.
// The expected sequences are the distinct published states, in order.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mapHookPayload, type HookFact } from '../../../src/integrations/events/index.js';
import { Arbiter, type ScreenEvaluation } from '../../../src/state/index.js';
import { SHARED_FIXTURES } from '../../shared-fixtures.js';
import path from 'node:path';

const FIX = path.join(SHARED_FIXTURES, 'hooks');
type Line = Record<string, unknown>;

function replay(file: string, agent: 'claude' | 'codex', opts: { screen: boolean }) {
  const raw = readFileSync(`${FIX}/${file}`, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);
  const firstMark = raw.find((o) => typeof o['t'] === 'string');
  let base = firstMark ? Date.parse(firstMark['t'] as string) - 2000 : 0;
  let k = 0;
  const timed = raw.map((o) => {
    if (typeof o['t'] === 'string') { base = Date.parse(o['t']); k = 0; return { o, t: base }; }
    k++;
    return { o, t: base + 100 * k };
  });
  let now = timed[0]!.t - 5000;
  const arb = new Arbiter({ agent, clock: () => now });
  const states: string[] = [];
  const at: Array<[string, string]> = [];
  const rec = (s: string, why: string) => { if (states[states.length - 1] !== s) { states.push(s); at.push([s, why]); } };
  const advanceTo = (t: number) => {
    for (;;) {
      const d = arb.nextDeadline();
      if (d === null || d > t) break;
      now = Math.max(now, d);
      rec(arb.tick().view.state, 'timer');
    }
    now = t;
    rec(arb.tick().view.state, 'tick');
  };
  let hash = 0;
  const screen = (s: Partial<ScreenEvaluation> & Pick<ScreenEvaluation, 'state'>) => {
    if (!opts.screen) return;
    now += 10;
    rec(arb.screen({ visibleIdle: false, visibleBlocker: false, visibleWorking: false, skipStateUpdate: false, hash: `s${hash++}`, ...s }).view.state, 'screen');
  };
  const IDLE = { state: 'idle' as const, visibleIdle: true };
  rec(arb.processStart().view.state, 'start');
  screen(IDLE);
  let exitAfterEnd = false;
  for (const { o, t } of timed) {
    advanceTo(t);
    const mark = o['harness_mark'];
    if (typeof mark === 'string') {
      if (/^(approved|answered)/.test(mark)) screen({ state: 'working' });
      else if (/^(denied|interrupt)/.test(mark)) screen(IDLE);
      else if (/^exit/.test(mark)) exitAfterEnd = true;
      else if (/^resume/.test(mark)) { rec(arb.processStart().view.state, 'restart'); screen(IDLE); }
      continue;
    }
    const f: HookFact | null = mapHookPayload(agent, o);
    if (f === null) continue;
    rec(arb.hookFact(f).view.state, f.event);
    if (f.kind === 'prompt-submit') screen({ state: 'working' });
    if (f.kind === 'permission' || f.kind === 'question') screen({ state: 'blocked', visibleBlocker: true });
    if (f.kind === 'turn-end') screen(IDLE);
    if (f.kind === 'session-end' && exitAfterEnd) { now += 50; rec(arb.processExit().view.state, 'exit'); exitAfterEnd = false; }
  }
  advanceTo(now + 10_000);
  return { states, at, arb };
}

describe('replay of recorded hooks (with the screen the person saw)', () => {
  it('claude-hooks.jsonl', () => {
    const { states } = replay('claude-hooks.jsonl', 'claude', { screen: true });
    expect(states).toEqual([
      'unknown', 'idle', // startup grace, then the idle prompt: first idle is idle, not done
      'working', 'blocked', 'working', 'done', // RUN_BASH: prompt, permission dialog, approved, Stop
      'working', 'blocked', 'working', 'done', // ASK_QUESTION: AskUserQuestion dialog, answered, Stop
      'working', 'done', // SUBAGENT: foreground subagent start/stop inside the turn, Stop with no background
      'working', 'blocked', // RUN_BASH again: dialog; denied with Esc → no hook. The next prompt comes 1.5 s
      // later, before the 2 s "dialog gone" rule, so the brief idle in between is not shown.
      'working', // SLOW answer; interrupted with Esc (no hook) and exited 1.3 s later, before the 3 s rule
      'exited', // SessionEnd + process exit
      'unknown', 'working', 'done', // resume: grace (hooks still count), prompt, Stop
      'exited',
    ]);
  });

  it('claude-hooks-long-waits.jsonl', () => {
    const { states } = replay('claude-hooks-long-waits.jsonl', 'claude', { screen: true });
    expect(states).toEqual([
      'unknown', 'idle',
      'working', 'blocked', 'working', 'done', // permission held 70 s: stays blocked; the 6 s Notification confirms it
      'working', 'blocked', 'working', 'done',
      'working', 'done',
      'working', 'blocked', 'working', // deny: next prompt 1.5 s later (before the 2 s rule)
      'idle', // interrupted with Esc, no hook: idle unchanged screen for 3 s → idle (user caused it: not done)
      'exited',
      'unknown', 'working', 'done',
      'exited',
    ]);
  });

  it('codex-hooks.jsonl', () => {
    const { states } = replay('codex-hooks.jsonl', 'codex', { screen: true });
    expect(states).toEqual([
      'unknown', 'idle',
      'working', 'blocked', 'working', // RUN_BASH, approval dialog, approved (PostToolUse)
      'done', // Stop is logged after the next "send" mark: a 100 ms done before the next prompt
      'working', 'blocked',
      'idle', // denied with Esc (no hook fired): dialog gone 2.01 s before the next prompt → answered, idle
      'working', // SLOW answer; interrupt (no hook) then exit 1.5 s later
      'exited',
      'unknown', 'idle', // resume: grace, then the idle prompt
    ]);
  });

  it('hooks alone (no screen) stay blocked after a deny with Esc: the screen is needed there', () => {
    const { states } = replay('claude-hooks.jsonl', 'claude', { screen: false });
    // Without screen evaluations, nothing ends the deny's "blocked" until the next prompt.
    expect(states.slice(0, 12)).toEqual(['unknown', 'working', 'blocked', 'working', 'done', 'working', 'blocked', 'working', 'done', 'working', 'done', 'working']);
    expect(states[12]).toBe('blocked');
  });
});

describe('codex notify replay', () => {
  it('the title turn does not end the main turn; the main turn-complete does', () => {
    const raw = readFileSync(`${FIX}/codex-notify.jsonl`, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);
    let now = 0;
    const arb = new Arbiter({ agent: 'codex', clock: () => now });
    arb.processStart({ grace: false });
    arb.hookFact({ kind: 'prompt-submit', agent: 'codex', event: 'UserPromptSubmit', conversationId: '01a22b65-6df2-7030-833c-53900e4b3eb7' });
    const seq: string[] = [];
    for (const o of raw) { now += 1000; const f = mapHookPayload('codex', o); if (f) seq.push(arb.hookFact(f).view.state); else seq.push(arb.tick().view.state); }
    expect(seq).toEqual(['working', 'done']);
  });
});
