// The change stream of `nerdr events` (src/supervisor/events.ts): the snapshot, a line per real
// change, and a reader that falls behind getting one resync instead of every change.
import { describe, expect, it } from 'vitest';
import { EventFeed, RESYNC_AT_BYTES, rowChanges, type EventLine } from '../../../src/supervisor/events.js';
import type { AgentRow } from '../../../src/protocol/index.js';

// the fields these tests look at; the feed compares whatever fields a row has
const row = (name: string): AgentRow => ({ name, window: `@${name}`, id: `id-${name}`, state: 'idle', stateSince: 1, queue: 0, seen: true }) as unknown as AgentRow;

function rig(initial: Record<string, AgentRow>) {
  const current = new Map(Object.entries(initial));
  const sent: EventLine[] = [];
  let pending = 0;
  let drain: (() => void) | null = null;
  const feed = new EventFeed(
    {
      send: (l) => {
        sent.push(l);
        pending += JSON.stringify(l).length;
        return true;
      },
      pending: () => pending,
      drained: (fn) => void (drain = fn),
    },
    () => [...current].map(([pane, r]) => ({ pane, row: r })),
    () => 42,
  );
  return {
    feed,
    sent,
    current,
    read: () => {
      pending = 0;
      const d = drain;
      drain = null;
      d?.();
    },
  };
}

describe('EventFeed', () => {
  it('starts with every row; then new, change (fields and earlier values) and closed lines; no line when nothing changed', () => {
    const r = rig({ '%1': row('a') });
    expect(r.feed.start().map((x) => x.name)).toEqual(['a']);
    r.feed.update('%1', row('a'));
    expect(r.sent).toEqual([]);
    r.feed.update('%1', { ...row('a'), state: 'working', stateSince: 9 });
    r.feed.update('%2', row('b'));
    r.feed.update('%1', null);
    r.feed.update('%1', null);
    expect(r.sent).toEqual([
      { type: 'change', at: 42, changed: ['state'], was: { state: 'idle' }, agent: expect.objectContaining({ state: 'working' }) },
      { type: 'new', at: 42, agent: expect.objectContaining({ name: 'b' }) },
      { type: 'closed', at: 42, window: '@a', id: 'id-a', name: 'a' },
    ]);
  });

  it('a reader more than RESYNC_AT_BYTES behind gets no more changes, then one resync with the rows as they are once it has read', () => {
    const r = rig({ '%1': row('a') });
    r.feed.start();
    const big = 'x'.repeat(4096);
    let i = 0;
    while (r.sent.length < 1000 && JSON.stringify(r.sent).length <= RESYNC_AT_BYTES) r.feed.update('%1', { ...row('a'), note: `${big}${i++}` });
    const before = r.sent.length;
    for (let k = 0; k < 50; k++) r.feed.update('%1', { ...row('a'), note: `later ${k}` });
    r.current.set('%1', { ...row('a'), note: 'later 49' });
    expect(r.sent).toHaveLength(before);
    r.read();
    expect(r.sent).toHaveLength(before + 1);
    expect(r.sent.at(-1)).toEqual({ type: 'resync', at: 42, agents: [expect.objectContaining({ note: 'later 49' })] });
    // and changes flow again, against the resync's rows
    r.feed.update('%1', { ...row('a'), note: 'after' });
    expect(r.sent.at(-1)).toMatchObject({ type: 'change', changed: ['note'], was: { note: 'later 49' } });
  });

  it('stateSince follows state and is no change of its own', () => {
    expect(rowChanges(row('a'), { ...row('a'), stateSince: 5 })).toEqual({ changed: [], was: {} });
  });
});
