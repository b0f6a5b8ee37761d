// Real hook payloads of Qwen Code 0.24.4, recorded offline against the fake model server
// (test/fixtures/hooks/qwen-0.24.4.jsonl: one {turn, event, payload} per line, in order; the
// per-token MessageDisplay and InstructionsLoaded events left out). Played through the mapper
// into the arbiter, with no screen: what each step ends as.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mapHookPayload } from '../../../src/integrations/events/index.js';
import { rig } from '../state/helpers.js';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/hooks/qwen-0.24.4.jsonl');
const events = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { turn: string; event: string; payload: unknown });

/** The step (the recording's own mark) and the state a person sees at its end. */
const EXPECTED: [string, string][] = [
  ['prompt-text', 'done'],
  ['run-bash-approve', 'blocked'],
  ['approve-enter', 'done'],
  ['run-bash-deny', 'blocked'],
  ['deny-esc', 'idle'],
  ['approve-key-1', 'done'],
  ['slow', 'done'],
  ['slow-interrupt', 'working'],
  ['esc-interrupt', 'idle'],
  ['esc-interrupt-slow-start', 'idle'],
  ['ask-question', 'blocked'],
  ['answer-enter', 'done'],
  ['subagent', 'blocked'],
  ['subagent-approve', 'done'],
  ['deny-key-4', 'idle'],
  ['slow-ctrl-c', 'working'],
];

describe('Qwen Code 0.24.4 real hook payloads', () => {
  it('maps: a continuation is no new prompt, a cancelled batch is a refusal, a question\'s PreToolUse is its answer', () => {
    const facts = events.map((e) => ({ turn: e.turn, fact: mapHookPayload('qwen', e.payload) }));
    const kinds = (turn: string) => facts.filter((f) => f.turn === turn).map((f) => f.fact?.kind ?? null);
    expect(kinds('approve-enter')).toEqual(['tool', 'tool', 'tool', 'tool', 'turn-end', 'notification-idle']);
    expect(kinds('deny-esc')).toEqual(['answered', 'notification-idle']);
    expect(facts.find((f) => f.turn === 'deny-esc')!.fact).toMatchObject({ kind: 'answered', denied: true });
    expect(kinds('ask-question')).toEqual(['prompt-submit', 'question', 'permission']);
    expect(kinds('answer-enter')[0]).toBe('answered');
    expect(kinds('subagent-approve')).toEqual(['tool', 'subagent-start', 'subagent-stop', 'tool', 'tool', 'tool', 'turn-end', 'notification-idle']);
    for (const f of facts) expect(f.fact, `${f.turn}`).not.toBeNull();
  });

  it('every step ends as a person sees it; only finished turns are done', () => {
    const r = rig({ agent: 'qwen' });
    r.start(false);
    const seen: [string, string][] = [];
    const steps = [...new Set(events.map((e) => e.turn))];
    for (const step of steps) {
      for (const e of events.filter((x) => x.turn === step)) {
        const fact = mapHookPayload('qwen', e.payload);
        if (fact) r.arb.hookFact(fact);
        r.wait(100);
      }
      r.wait(1000);
      const want = EXPECTED.find(([s]) => s === step);
      if (want) seen.push([step, r.arb.view().state]);
      r.arb.seen();
    }
    expect(seen).toEqual(EXPECTED);
  });
});
