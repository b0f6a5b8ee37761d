// Real events of pi 1.6.0 from nerdr's extension (hooks/pi/nerdr.js), recorded offline against the
// fake model server (test/fixtures/hooks/pi-1.6.0.jsonl: one {turn, event, payload} per line, in
// order): a plain turn, a command pi runs without asking, a turn stopped with Esc, an extension's
// confirm dialog answered with Enter, and the quit. Played through the mapper into the arbiter,
// with no screen: what each step ends as.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mapHookPayload } from '../../../src/integrations/events/index.js';
import { rig } from '../state/helpers.js';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/hooks/pi-1.6.0.jsonl');
const events = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { turn: string; event: string; payload: unknown });
const SESSION = '3f0c2a9e-5b7d-4c1e-9a2b-7d6e5f4a3b2c';

// (the startup step is left out: with no screen and no turn yet, the light is unknown)
const EXPECTED: [string, string][] = [
  ['prompt-text', 'done'],
  ['run-bash', 'done'],
  ['slow-esc', 'idle'],
  ['confirm-dialog', 'blocked'],
  ['confirm-enter', 'idle'],
];

describe('pi 1.6.0 real extension events', () => {
  it('maps: a run starts with its prompt and ends settled; Esc is an interrupt; a dialog is a question', () => {
    const facts = events.map((e) => ({ turn: e.turn, fact: mapHookPayload('pi', e.payload) }));
    const kinds = (turn: string) => facts.filter((f) => f.turn === turn).map((f) => f.fact?.kind ?? null);
    expect(kinds('startup')).toEqual(['session-start']);
    expect(kinds('prompt-text')).toEqual(['prompt-submit', 'turn-start', 'turn-end']);
    expect(kinds('run-bash')).toEqual(['prompt-submit', 'turn-start', 'tool', 'turn-end']);
    expect(facts.find((f) => f.turn === 'run-bash' && f.fact?.kind === 'tool')!.fact).toMatchObject({ detail: 'bash' });
    expect(kinds('slow-esc')).toEqual(['prompt-submit', 'turn-start', 'interrupt']);
    expect(kinds('confirm-dialog')).toEqual(['question']);
    expect(facts.find((f) => f.turn === 'confirm-dialog')!.fact).toMatchObject({ detail: 'Delete the build folder?' });
    // the dialog came from an input handler, not a run: closing it leaves pi waiting
    expect(kinds('confirm-enter')).toEqual(['notification-idle']);
    expect(kinds('quit')).toEqual(['session-end']);
    for (const f of facts) expect(f.fact?.conversationId, f.turn).toBe(SESSION);
  });

  it('every step ends as a person sees it; only finished turns are done', () => {
    const r = rig({ agent: 'pi' });
    r.start(false);
    const seen: [string, string][] = [];
    for (const step of [...new Set(events.map((e) => e.turn))]) {
      for (const e of events.filter((x) => x.turn === step)) {
        const fact = mapHookPayload('pi', e.payload);
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

  it('a run for an extension\'s message is no prompt; a reload is no end; junk is nothing', () => {
    expect(mapHookPayload('pi', { event: 'before_agent_start', messageType: 'custom' })?.kind).toBe('turn-start');
    expect(mapHookPayload('pi', { event: 'session_shutdown', reason: 'reload' })).toBeNull();
    expect(mapHookPayload('pi', { event: 'session_start', reason: 'reload' })).toMatchObject({ kind: 'session-start', source: 'other' });
    expect(mapHookPayload('pi', { event: 'agent_settled', aborted: false, outcome: 'error' })).toMatchObject({ kind: 'turn-end', error: true });
    expect(mapHookPayload('pi', { event: 'message_update' })).toBeNull();
    expect(mapHookPayload('pi', 'not an object')).toBeNull();
    expect(mapHookPayload('pi', [])).toBeNull();
  });
});

describe('pi dialogs inside a run', () => {
  it('a dialog a tool opens blocks the run, and closing it lets the run go on', () => {
    const r = rig({ agent: 'pi' });
    r.start(false);
    for (const p of [{ event: 'before_agent_start', messageType: 'user' }, { event: 'agent_start' }, { event: 'tool_execution_start', toolName: 'deploy' }]) r.arb.hookFact(mapHookPayload('pi', p)!);
    r.wait(500);
    r.arb.hookFact(mapHookPayload('pi', { event: 'ui_prompt_start', kind: 'confirm', title: 'Deploy?', running: true })!);
    r.wait(500);
    expect(r.arb.view().state).toBe('blocked');
    r.arb.hookFact(mapHookPayload('pi', { event: 'ui_prompt_end', kind: 'confirm', running: true })!);
    r.wait(500);
    expect(r.arb.view().state).toBe('working');
    r.arb.hookFact(mapHookPayload('pi', { event: 'agent_settled', aborted: false, outcome: 'completed' })!);
    r.wait(1500);
    expect(r.arb.view().state).toBe('done');
  });
});
