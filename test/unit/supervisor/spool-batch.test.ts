// Issue 26 "Bounded reads": a backlog in the spool is read in bounded batches. 300 events of
// 1 MiB read at once took the supervisor from 85 to 425 MB when it started. Here: when the first
// event is applied, the reader has read the payloads of at most SPOOL_BATCH files (headers are
// read with a bounded read of their own), and every event is still applied, in order.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const reads = vi.hoisted(() => ({ whole: 0 }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fsp = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...fsp,
    readFile: (async (...args: Parameters<typeof fsp.readFile>) => {
      if (String(args[0]).endsWith('.hook')) reads.whole++;
      return fsp.readFile(...args);
    }) as typeof fsp.readFile,
  };
});

const { SpoolReader, SPOOL_BATCH, writeSpoolFile } = await import('../../../src/supervisor/spool.js');
const { FakeTime } = await import('./harness.js');

describe('the spool reader on a backlog', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-spool-batch-'));
    reads.whole = 0;
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
  });
});
