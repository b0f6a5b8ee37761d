// LightsWriter.whenApplied: what the hook spool waits for before it deletes an applied event.

import { describe, expect, it } from 'vitest';
import { LightsWriter } from '../../../src/supervisor/lights.js';
import { FakeTime } from './harness.js';

describe('LightsWriter.whenApplied', () => {
  const rig = () => {
    const time = new FakeTime(1_000_000);
    const sent: { cmds: string[]; done: (ok: boolean[]) => void }[] = [];
    const w = new LightsWriter((cmds, done) => sent.push({ cmds, done }), 5, 250, undefined, time);
    return { time, sent, w };
  };

  it('resolves once tmux has the value wanted when asked, or a later one; not before', () => {
    const { time, sent, w } = rig();
    const seen: boolean[] = [];
    w.setOption('@1', '@nerdr_facts', 'a');
    w.whenApplied('@1', '@nerdr_facts', (ok) => seen.push(ok));
    time.advance(10);
    expect(sent).toHaveLength(1);
    expect(seen).toEqual([]);
    // a newer value wanted while the first is on its way: a wait for it is not settled by the old one
    w.setOption('@1', '@nerdr_facts', 'b');
    w.whenApplied('@1', '@nerdr_facts', (ok) => seen.push(ok));
    sent[0]!.done(sent[0]!.cmds.map(() => true));
    expect(seen).toEqual([true]);
    time.advance(300);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.cmds.join(' ')).toContain("'b'");
    sent[1]!.done(sent[1]!.cmds.map(() => true));
    expect(seen).toEqual([true, true]);
    // already applied: at once
    w.whenApplied('@1', '@nerdr_facts', (ok) => seen.push(ok));
    expect(seen).toEqual([true, true, true]);
  });

  it('a refused write keeps the wait (it is retried); a window that goes ends it with false', () => {
    const { time, sent, w } = rig();
    const seen: boolean[] = [];
    w.setOption('@1', '@nerdr_facts', 'a');
    w.whenApplied('@1', '@nerdr_facts', (ok) => seen.push(ok));
    time.advance(10);
    sent[0]!.done(sent[0]!.cmds.map(() => false));
    expect(seen).toEqual([]);
    w.remove('@1');
    expect(seen).toEqual([false]);
    w.whenApplied('@2', '@nerdr_facts', (ok) => seen.push(ok));
    expect(seen).toEqual([false, false]);
  });
});
