// Real plugin events of opencode 1.18.33, recorded offline under nerdr (test/fixtures/hooks/
// opencode-1.18.33.jsonl: one {turn, event, payload} per line, in the order opencode sent them):
// two turns interrupted with Esc Esc, one whose permission was refused with Esc, one that
// completes. Played through the mapper into the arbiter: only the last may end done.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mapHookPayload } from '../../../src/integrations/events/index.js';
import { rig } from '../state/helpers.js';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/hooks/opencode-1.18.33.jsonl');
const events = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { turn: string; event: string; payload: unknown });
const turns = [...new Set(events.map((e) => e.turn))];

describe('opencode 1.18.33 real plugin events', () => {
  it('an abort is an interrupt; a refused permission is an answer marked denied', () => {
    const facts = events.map((e) => mapHookPayload('opencode', e.payload, e.event));
    const kinds = (turn: string) => events.map((e, i) => (e.turn === turn ? facts[i]?.kind ?? null : undefined)).filter((k) => k !== undefined);
    expect(kinds('interrupted while streaming')).toEqual(['session-start', 'prompt-submit', 'turn-start', 'turn-start', 'interrupt', 'turn-end', 'turn-end', 'turn-end', 'turn-end']);
    expect(kinds('permission denied with Esc')).toEqual(['prompt-submit', 'turn-start', 'turn-start', 'tool', 'permission', 'answered', 'turn-end', 'turn-end']);
    const refused = facts[events.findIndex((e) => e.event === 'permission.replied')];
    expect(refused).toMatchObject({ kind: 'answered', denied: true, detail: 'reject' });
  });

  for (const turn of turns) {
    const expected = turn === 'a turn that completes' ? 'done' : 'idle';
    it(`${turn}: ${expected} at the end`, () => {
      const r = rig({ agent: 'opencode' });
      r.start(false);
      // the turns before this one, then this one
      for (const e of events.slice(0, events.findLastIndex((x) => x.turn === turn) + 1)) {
        const fact = mapHookPayload('opencode', e.payload, e.event);
        if (fact) r.arb.hookFact(fact);
        r.wait(200);
      }
      r.wait(5000);
      expect(r.arb.view().state).toBe(expected);
    });
  }
});
