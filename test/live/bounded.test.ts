// Issue 26 "Bounded reads", on the real supervisor: a backlog of 300 hook events of 1 MiB each,
// written while no supervisor runs, is applied by the next one within twice the idle
// supervisor's peak RSS (before the fix every file was read at once: 85 → 425 MB). The peak is
// the kernel's own high-water mark (VmHWM), so no sampling and no timing is involved.

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidAlive, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';
import { serverFiles } from '../../src/paths.js';
import { writeSpoolFile } from '../../src/supervisor/spool.js';
import { MAX_PAYLOAD_BYTES } from '../../src/integrations/payload.js';
import { MAX_LINE_BYTES } from '../../src/fleet/lines.js';

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

  it("a fleet host that sends a line and then 200 MB without a newline: the link is dropped with the reason in fleet ls, within twice the idle supervisor's RSS", async () => {
    // the documented `[fleet] ssh` option with a program of the test's: whatever the target, it
    // prints the start of the event stream, then 200 MB without a newline, and marks when all of
    // it was taken (a pipe write returns only once the reader made room: the supervisor read it)
    const fake = path.join(env.configDir, 'noisy-ssh');
    const allRead = path.join(env.configDir, 'noisy-all-read');
    writeFileSync(fake, `#!/bin/sh\nprintf '{"type":"resync","at":1,"agents":[]}\\n'\nhead -c ${200 * 1024 * 1024} /dev/zero && : > '${allRead}'\nexec cat >/dev/null\n`, { mode: 0o755 });
    writeFileSync(path.join(env.configDir, 'config.toml'), `[fleet]\nssh = [${JSON.stringify(fake)}]\n`);
    // a supervisor of its own: the peak of one that read a spool backlog says nothing here
    const before = await env.supervisorPid();
    if (before !== null) {
      expect((await env.nerdr('supervisor', 'stop')).code).toBe(0);
      await waitFor(() => !pidAlive(before), { what: 'the last supervisor stopped' });
    }
    expect((await env.nerdr('supervisor', 'start')).code).toBe(0);
    const pid = await waitFor(() => env.supervisorPid(), { what: 'a supervisor' });
    const idle = peakKb(pid);

    expect((await env.nerdr('fleet', 'add', 'noisy', 'noisy.example')).code).toBe(0);
    const host = async () => (JSON.parse((await env.nerdr('fleet', 'ls', '--json')).stdout) as { name: string; error: { kind: string; message: string; fix: string } | null }[])[0];
    await waitFor(async () => existsSync(allRead) || (await host())?.error?.kind === 'line-too-long', { timeoutMs: 60_000, what: 'the link dropped (or all 200 MB read)' });
    const peak = peakKb(pid);
    const h = await host();
    expect((await env.nerdr('fleet', 'rm', 'noisy')).code).toBe(0);
    process.stderr.write(`[bounded] fleet host sending 200 MB without a newline: idle supervisor peak ${Math.round(idle / 1024)} MB, with the host ${Math.round(peak / 1024)} MB; fleet ls: ${h?.error?.message}\n`);
    expect(existsSync(allRead)).toBe(false);
    expect(h?.error?.kind).toBe('line-too-long');
    expect(h?.error?.message).toContain(`noisy sent a line over ${MAX_LINE_BYTES / (1024 * 1024)} MiB`);
    expect(peak).toBeLessThan(2 * idle);
  }, 120_000);
});
