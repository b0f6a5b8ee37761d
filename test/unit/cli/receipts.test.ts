// What `nerdr send --wait` / `--status` make of a receipt (src/cli/receipts.ts).
import { describe, expect, it } from 'vitest';
import { receiptEnd, receiptSteps } from '../../../src/cli/receipts.js';
import type { Receipt } from '../../../src/store/queue.js';

const base: Receipt = { id: 'm1', queuedAt: 1000, pastedAt: null, startedAt: null, states: [], stalledAt: null, closedAt: null, closed: null };
const DEFAULT = ['done', 'idle', 'blocked'];

describe('receipts', () => {
  it('steps in order: queued, typed in, the turn started (with its state), each state after, closed', () => {
    const r: Receipt = { ...base, pastedAt: 1100, startedAt: 1500, states: [{ state: 'working', at: 1500 }, { state: 'done', at: 9000 }], closedAt: 12000, closed: 'the next message was typed in' };
    expect(receiptSteps(r)).toEqual([
      { step: 'queued', at: 1000 },
      { step: 'pasted', at: 1100 },
      { step: 'started', at: 1500, state: 'working' },
      { step: 'state', at: 9000, state: 'done' },
      { step: 'closed', at: 12000, why: 'the next message was typed in' },
    ]);
  });

  it('ends at the first of the states after the turn started; not before it started', () => {
    expect(receiptEnd(base, DEFAULT)).toBeNull();
    expect(receiptEnd({ ...base, pastedAt: 1100 }, DEFAULT)).toBeNull();
    const working = { ...base, pastedAt: 1100, startedAt: 1500, states: [{ state: 'working', at: 1500 }] };
    expect(receiptEnd(working, DEFAULT)).toBeNull();
    expect(receiptEnd({ ...working, states: [...working.states, { state: 'blocked', at: 2000 }, { state: 'done', at: 3000 }] }, DEFAULT)).toMatchObject({ exit: 0, state: 'blocked' });
    expect(receiptEnd({ ...working, states: [...working.states, { state: 'blocked', at: 2000 }, { state: 'done', at: 3000 }] }, ['done'])).toMatchObject({ exit: 0, state: 'done' });
    // a question right away started the turn, and ends it when blocked is asked for
    expect(receiptEnd({ ...base, pastedAt: 1100, startedAt: 1200, states: [{ state: 'blocked', at: 1200 }] }, DEFAULT)).toMatchObject({ exit: 0, state: 'blocked' });
  });

  it('4 when it stalled with no response; 3 when the agent went away or the next message came first', () => {
    expect(receiptEnd({ ...base, pastedAt: 1100, stalledAt: 6100 }, DEFAULT)).toMatchObject({ exit: 4 });
    const gone = { ...base, pastedAt: 1100, startedAt: 1500, states: [{ state: 'working', at: 1500 }, { state: 'exited', at: 2000 }], closedAt: 2000, closed: 'the agent exited' };
    expect(receiptEnd(gone, DEFAULT)).toEqual({ exit: 3, state: null, why: 'the agent exited before the agent was done or idle or blocked' });
    expect(receiptEnd(gone, ['exited'])).toMatchObject({ exit: 0, state: 'exited' });
  });

  it('3 with the receipt\'s own words when it may have been typed in while the supervisor stopped', () => {
    const closed = 'it may have been typed in (the supervisor stopped while typing it); not typed again: `nerdr send --retry m1` queues it again';
    expect(receiptEnd({ ...base, closedAt: 2000, closed, retryText: 'hello' }, DEFAULT)).toEqual({ exit: 3, state: null, why: closed });
  });
});
