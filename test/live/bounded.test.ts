// Issue 26 "Bounded reads", on the real supervisor: a backlog of 300 hook events of 1 MiB each,
// written while no supervisor runs, is applied by the next one within twice the idle
// supervisor's peak RSS (before the fix every file was read at once: 85 → 425 MB). The peak is
// the kernel's own high-water mark (VmHWM), so no sampling and no timing is involved.

import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidAlive, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';
import { serverFiles } from '../../src/paths.js';
import { writeSpoolFile } from '../../src/supervisor/spool.js';
import { MAX_PAYLOAD_BYTES } from '../../src/integrations/payload.js';

/** A process's peak resident memory (kB), from /proc. */
function peakKb(pid: number): number {
  const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmHWM for ${pid}`);
  return Number(m[1]);
}

describe.skipIf(!tmuxAvailable)('bounded reads, live', () => {
  let env: LiveEnv;
  let spool = '';
  beforeAll(async () => {
    env = await startLiveEnv();
    spool = serverFiles(env.socketPath, env.env).spool;
  }, 60_000);
  afterAll(async () => {
    await env?.cleanup();
  });

  const waiting = (): number => {
    try {
      return readdirSync(spool).filter((n) => n.endsWith('.hook')).length;
    } catch {
      return 0;
    }
  };

  it('a backlog of 300 events of 1 MiB is applied within twice the idle supervisor\'s RSS', async () => {
    expect((await env.nerdr('supervisor', 'start')).code).toBe(0);
    const idlePid = await waitFor(() => env.supervisorPid(), { what: 'a supervisor' });
    const idle = peakKb(idlePid);
    expect((await env.nerdr('supervisor', 'stop')).code).toBe(0);
    await waitFor(() => !pidAlive(idlePid), { what: 'the idle supervisor stopped' });

    // JSON just under the payload cap, with a secret that names no window: the reader reads each
    // file whole (to decode and authenticate it), refuses it as the socket would, and deletes it
    const payload = JSON.stringify({ hook_event_name: 'Notification', message: 'x'.repeat(MAX_PAYLOAD_BYTES - 100) });
    const t0 = BigInt(Date.now()) * 1_000_000n;
    for (let i = 0; i < 300; i++) writeSpoolFile(spool, { secret: 'no-such-window', agent: 'claude', timeNs: t0 + BigInt(i), seq: i, payload });
    expect(waiting()).toBe(300);

    expect((await env.nerdr('supervisor', 'start')).code).toBe(0);
    const pid = await waitFor(async () => {
      const p = await env.supervisorPid();
      return p !== idlePid && p;
    }, { what: 'a new supervisor' });
    await waitFor(() => waiting() === 0, { timeoutMs: 60_000, what: 'the backlog read and refused' });
    const peak = peakKb(pid);
    process.stderr.write(`[bounded] spool backlog of 300 × 1 MiB: idle supervisor peak ${Math.round(idle / 1024)} MB, with the backlog ${Math.round(peak / 1024)} MB\n`);
    expect(peak).toBeLessThan(2 * idle);
  }, 120_000);
});
