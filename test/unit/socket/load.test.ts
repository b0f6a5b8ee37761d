import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, RawClient, req, SECRET, startServer, type Harness } from './helpers.js';

// Clients and server share this process, so 1,000 connections need ~2,000 descriptors.
const fdLimit = Number(spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).stdout.trim()) || 0;
const enoughFds = fdLimit === 0 || Number.isNaN(fdLimit) ? true : fdLimit >= 2300;

let h: Harness;
beforeEach(async () => {
  h = await startServer({ requestTimeoutMs: 20_000 });
});
afterEach(async () => {
  await h.cleanup();
});

/** Records the worst delay of a 5 ms timer while `work` runs. */
async function probeLag<T>(work: () => Promise<T>): Promise<{ result: T; maxLagMs: number; ticks: number }> {
  let last = performance.now();
  let maxLagMs = 0;
  let ticks = 0;
  const t = setInterval(() => {
    const now = performance.now();
    maxLagMs = Math.max(maxLagMs, now - last - 5);
    last = now;
    ticks += 1;
  }, 5);
  try {
    const result = await work();
    return { result, maxLagMs, ticks };
  } finally {
    clearInterval(t);
  }
}

describe.skipIf(!enoughFds)('1,000 concurrent connections', () => {
  it('answers 1,000 simultaneous reports while the event loop keeps ticking', async () => {
    const { result, maxLagMs, ticks } = await probeLag(() =>
      Promise.all(
        Array.from({ length: 1000 }, (_, i) =>
          call(h.path, req('pane.report_agent', { pane_id: SECRET, source: `s${i}`, agent: 'x', state: 'working', seq: i + 1 }, `r${i}`)),
        ),
      ),
    );
    expect(result.every((r, i) => r.id === `r${i}` && (r.result as { type: string }).type === 'ok')).toBe(true);
    expect(h.reports).toHaveLength(1000);
    expect(ticks).toBeGreaterThan(0);
    // a stall would show as seconds without a tick; the bound is loose on purpose (shared CI cores)
    expect(maxLagMs).toBeLessThan(2000);
  });

  it('keeps serving while 1,000 silent clients hold connections open', async () => {
    const idle = Array.from({ length: 1000 }, () => new RawClient(h.path));
    try {
      await Promise.all(idle.map((c) => c.connected()));
      // Half of them trickle a partial line in (the server must buffer each one incrementally).
      for (const c of idle.slice(0, 500)) c.send('{"id":"slow","method":"pi');
      const deadline = Date.now() + 5000;
      while (h.server.connectionCount() < 1000 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
      expect(h.server.connectionCount()).toBeGreaterThanOrEqual(1000);
      const { result, maxLagMs } = await probeLag(async () => {
        const t0 = performance.now();
        const reply = await call(h.path, req('ping', {}));
        return { reply, ms: performance.now() - t0 };
      });
      expect(result.reply).toMatchObject({ result: { type: 'pong' } });
      // a stall would show as seconds; the bounds are loose on purpose (shared CI cores)
      expect(result.ms).toBeLessThan(2000);
      expect(maxLagMs).toBeLessThan(2000);
      // And the trickling clients can still finish their requests.
      idle[0]!.send('ng","params":{}}\n');
      await idle[0]!.waitLines(1);
      expect(idle[0]!.lines[0]).toMatchObject({ id: 'slow', result: { type: 'pong' } });
    } finally {
      for (const c of idle) c.destroy();
    }
  });
});
