import { describe, expect, it } from 'vitest';
import { Rerun } from '../../../src/supervisor/rerun.js';

/** A job whose runs end when the test says, counting how many started. */
function gated() {
  const ends: (() => void)[] = [];
  let runs = 0;
  const job = () => new Promise<number>((resolve) => { runs++; const n = runs; ends.push(() => resolve(n)); });
  return { job, runs: () => runs, end: async () => { ends.shift()!(); await new Promise((r) => setImmediate(r)); } };
}

describe('Rerun', () => {
  it('calls during a run share it and make it run once more, however many; the result is the last run\'s', async () => {
    const g = gated();
    const r = new Rerun(g.job);
    const first = r.run();
    const second = r.run();
    const third = r.run();
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(g.runs()).toBe(1);
    await g.end();
    expect(g.runs()).toBe(2);
    await g.end();
    expect(await first).toBe(2);
    expect(r.current).toBeNull();
  });

  it('a call with nothing under way runs at once and only once', async () => {
    const g = gated();
    const r = new Rerun(g.job);
    const p = r.run();
    await g.end();
    expect(await p).toBe(1);
    expect(g.runs()).toBe(1);
  });

  it('no run more once `more` says no', async () => {
    const g = gated();
    let open = true;
    const r = new Rerun(g.job, { more: () => open });
    const p = r.run();
    r.run();
    open = false;
    await g.end();
    expect(await p).toBe(1);
    expect(g.runs()).toBe(1);
  });

  it('a failed run rejects, or becomes what `failed` makes of it; the next call runs again', async () => {
    let fail = true;
    const plain = new Rerun(async () => { if (fail) throw new Error('boom'); return 'ok'; });
    await expect(plain.run()).rejects.toThrow('boom');
    fail = false;
    expect(await plain.run()).toBe('ok');
    const kept = new Rerun(async (): Promise<string> => { throw new Error('boom'); }, { failed: (e) => `logged ${e.message}` });
    expect(await kept.run()).toBe('logged boom');
  });
});
