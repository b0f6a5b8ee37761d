// Gemini CLI 0.61.0 sends the same AfterAgent for an interrupted turn as for a finished one; its
// transcript tells them apart. Real files, recorded offline under nerdr: the AfterAgent payloads of
// two turns interrupted with Esc (test/fixtures/hooks/gemini-0.61.0-afteragent.jsonl) and that
// session's transcript (gemini-0.61.0-transcript.jsonl), where Gemini wrote "Request cancelled."
// just before each hook ran.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { geminiTurnCancelled } from '../../../src/integrations/events/gemini.js';
import { mapHookPayload, refineFact } from '../../../src/integrations/events/index.js';
import { rig } from '../state/helpers.js';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/hooks');
const transcript = path.join(dir, 'gemini-0.61.0-transcript.jsonl');
const cases = readFileSync(path.join(dir, 'gemini-0.61.0-afteragent.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { case: string; payload: Record<string, unknown> });
/** The recorded payload, pointing at the recorded transcript where it is kept here. */
const at = (payload: Record<string, unknown>, timestamp?: string) => ({ ...payload, transcript_path: transcript, ...(timestamp ? { timestamp } : {}) });

describe('Gemini: an interrupted turn from its transcript', () => {
  it('both recorded interrupts are turn ends that refineFact makes interrupts', () => {
    expect(cases.map((c) => c.case)).toEqual(['interrupted while streaming', 'interrupted before the first token']);
    for (const c of cases) {
      const fact = mapHookPayload('gemini', at(c.payload), 'AfterAgent');
      expect(fact).toMatchObject({ kind: 'turn-end', transcript: { path: transcript, at: c.payload['timestamp'] } });
      expect(refineFact(fact!)).toMatchObject({ kind: 'interrupt', agent: 'gemini', detail: 'Request cancelled.', conversationId: c.payload['session_id'] });
    }
  });

  it('a turn whose last message is the model\'s answer stays a turn end', () => {
    // the same session, after the "Hello there" turn had its answer (23:39:43.453)
    const fact = mapHookPayload('gemini', at(cases[0]!.payload, '2026-12-01T23:39:44.000Z'), 'AfterAgent')!;
    expect(refineFact(fact).kind).toBe('turn-end');
    // only messages up to the hook's own time count: at 23:39:30 the last is the user's prompt
    expect(geminiTurnCancelled(transcript, '2026-12-01T23:39:30.000Z')).toBe(false);
    expect(geminiTurnCancelled(transcript, '2026-12-01T23:39:24.303Z')).toBe(true);
  });

  it('a transcript it cannot read, or none, says nothing', () => {
    expect(geminiTurnCancelled(path.join(dir, 'no-such-file.jsonl'))).toBe(false);
    expect(geminiTurnCancelled(dir)).toBe(false);
    // a FIFO (no writer) is not a file: refused at once, not waited on
    const fifo = path.join(mkdtempSync(path.join(os.tmpdir(), 'nerdr-fifo-')), 'transcript.jsonl');
    execFileSync('mkfifo', [fifo]);
    expect(geminiTurnCancelled(fifo)).toBe(false);
    rmSync(path.dirname(fifo), { recursive: true });
    const { transcript_path: _t, ...bare } = cases[0]!.payload;
    expect(refineFact(mapHookPayload('gemini', bare, 'AfterAgent')!).kind).toBe('turn-end');
  });

  it('the arbiter shows idle after the interrupt, done after a finished turn', () => {
    for (const [payload, expected] of [
      [at(cases[0]!.payload), 'idle'],
      [at(cases[0]!.payload, '2026-12-01T23:39:44.000Z'), 'done'],
    ] as const) {
      const r = rig({ agent: 'gemini' });
      r.start(false);
      r.hook('prompt-submit', { agent: 'gemini' });
      r.wait(1000);
      r.arb.hookFact(refineFact(mapHookPayload('gemini', payload, 'AfterAgent')!));
      r.wait(5000);
      expect(r.arb.view().state).toBe(expected);
    }
  });
});
