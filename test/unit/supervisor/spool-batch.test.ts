// Issue 26 "Bounded reads": a backlog in the spool is read in bounded batches. 300 events of
// 1 MiB read at once took the supervisor from 85 to 425 MB when it started. Here: when the first
// event is applied, the reader has read the payloads of at most SPOOL_BATCH files (headers are
// read with a bounded read of their own), and every event is still applied, in order.

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const reads = vi.hoisted(() => ({ whole: 0, buffers: new Set<unknown>() }));
// a payload read: a spool file read whole, or a read of one asking for more than a header's
// bound (4 KiB and the blank line) — the reader reads headers with a bounded read of their own
vi.mock('node:fs/promises', async (importOriginal) => {
  const fsp = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...fsp,
    readFile: (async (...args: Parameters<typeof fsp.readFile>) => {
      if (!String(args[0]).endsWith('.hook')) return fsp.readFile(...args);
      reads.whole++;
      const b = await fsp.readFile(...args);
      reads.buffers.add(b);
      return b;
    }) as typeof fsp.readFile,
    open: (async (...args: Parameters<typeof fsp.open>) => {
      const fh = await fsp.open(...args);
      if (!String(args[0]).endsWith('.hook')) return fh;
      let counted = false;
      const read = fh.read.bind(fh) as (...a: unknown[]) => Promise<unknown>;
      (fh as unknown as { read: (...a: unknown[]) => Promise<unknown> }).read = (...a: unknown[]) => {
        if (typeof a[2] === 'number' && a[2] > 4096 + 2) {
          reads.buffers.add(a[0]);
          if (!counted) reads.whole++;
          counted = true;
        }
        return read(...a);
      };
      return fh;
    }) as typeof fsp.open,
  };
});

const { SpoolReader, SPOOL_BATCH, writeSpoolFile } = await import('../../../src/supervisor/spool.js');
const { FakeTime } = await import('./harness.js');

describe('the spool reader on a backlog', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-spool-batch-'));
    reads.whole = 0;
    reads.buffers.clear();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it(`reads one batch of payloads before it applies the first event, and applies all in order`, async () => {
    const n = 67; // several batches and a part of one
    const big = 'x'.repeat(64 * 1024);
    // written out of order: the reader orders them by time
    for (let i = n - 1; i >= 0; i--) writeSpoolFile(dir, { secret: 'S1', agent: 'claude', timeNs: 1_700_000_000_000_000_000n + BigInt(i), seq: i, payload: JSON.stringify({ hook_event_name: 'Stop', i, big }) });
    const readBeforeFirst: number[] = [];
    const order: number[] = [];
    const r = new SpoolReader<string>({
      dir,
      authenticate: (s) => (s === 'S1' ? '@1' : null),
      apply: (h) => {
        if (order.length === 0) readBeforeFirst.push(reads.whole);
        order.push((h.event as { i: number }).i);
      },
      startedAt: () => null,
      describe: (w) => w,
      log: () => undefined,
      clock: new FakeTime(),
    });
    await r.start();
    await r.close();
    expect(order).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(readBeforeFirst[0]).toBeGreaterThan(0);
    // not the whole backlog at once (the reader before issue 26 read all of them first)…
    expect(readBeforeFirst[0]).toBeLessThan(n);
    // …but one batch
    expect(readBeforeFirst[0]).toBeLessThanOrEqual(SPOOL_BATCH);
    // and into the same SPOOL_BATCH buffers, batch after batch: a Buffer per payload is memory
    // outside V8's heap, given back only when a collection finds it (70 MB of them at once on a
    // backlog of 1 MiB events)
    expect(reads.buffers.size).toBeGreaterThan(0);
    expect(reads.buffers.size).toBeLessThanOrEqual(SPOOL_BATCH);
  });

  it('a backlog whose secret names no window is refused from the headers: no payload is read, every file goes', async () => {
    const big = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 20; i++) writeSpoolFile(dir, { secret: 'nobody', agent: 'claude', timeNs: 1_700_000_000_000_000_000n + BigInt(i), seq: i, payload: JSON.stringify({ hook_event_name: 'Stop', big }) });
    writeSpoolFile(dir, { secret: 'S1', agent: 'claude', timeNs: 1_700_000_000_000_000_100n, seq: 99, payload: JSON.stringify({ hook_event_name: 'Stop' }) });
    const lines: string[] = [];
    const applied: string[] = [];
    const r = new SpoolReader<string>({
      dir,
      authenticate: (s) => (s === 'S1' ? '@1' : null),
      apply: (h) => void applied.push(h.window),
      startedAt: () => null,
      describe: (w) => w,
      log: (_level, line) => void lines.push(line),
      clock: new FakeTime(),
    });
    await r.start();
    await r.close();
    expect(applied).toEqual(['@1']);
    // the window's one event read whole; the strangers' never
    expect(reads.whole).toBe(1);
    expect(readdirSync(dir).filter((n) => n.endsWith('.hook'))).toEqual([]);
    expect(lines).toContain('spool: 20 event(s) with a secret that names no window refused (as the socket refuses them)');
  });
});
