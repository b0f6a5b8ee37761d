// Issue 26 "Bounded reads", on the real supervisor: a backlog of 300 hook events of 1 MiB each
// for a real agent window, written while no supervisor runs, is applied by the next one within
// twice the idle supervisor's peak RSS (every file read at once: 85 → 425 MB; in batches of 4 with
// a Buffer per file: 71 → 133 MB; into the reader's own slots: 71 → 92 MB). A fleet host that
// sends 200 MB without a newline is dropped within the same bound (readline: 68 → 509 MB). The
// peak is the kernel's own high-water mark (VmHWM), so no sampling and no timing is involved.

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidAlive, REPO_ROOT, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';
import { SHARED_FIXTURES } from '../shared-fixtures.js';
import { serverFiles } from '../../src/paths.js';
import { writeSpoolFile } from '../../src/supervisor/spool.js';
import { MAX_PAYLOAD_BYTES } from '../../src/integrations/payload.js';
import { startWiredClaude } from './helpers/wired-claude.js';
import { MAX_LINE_BYTES } from '../../src/fleet/lines.js';

/** A process's peak resident memory (kB), from /proc. */
function peakKb(pid: number): number {
  const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmHWM for ${pid}`);
  return Number(m[1]);
}

/** The fake `claude` (helpers/fake-agent.js) and the screen it shows, as in spool.test.ts. */
const FAKE = path.join(REPO_ROOT, 'test', 'live', 'helpers', 'fake-agent.js');
const IDLE = path.join(SHARED_FIXTURES, 'screens', 'claude', '01-startup-idle.ansi.txt');
const hasFixtures = existsSync(IDLE);

describe.skipIf(!tmuxAvailable || !hasFixtures)('bounded reads, live', () => {
  let env: LiveEnv;
  let spool = '';
  let bin = '';
  beforeAll(async () => {
    bin = path.join(process.env.TMPDIR ?? '/tmp', `nerdr-bounded-bin-${process.pid}-${Date.now()}`);
    mkdirSync(bin, { recursive: true });
    symlinkSync(FAKE, path.join(bin, 'claude'));
    env = await startLiveEnv({ env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, FAKE_AGENT_SCREEN: IDLE } });
    spool = serverFiles(env.socketPath, env.env).spool;
  }, 60_000);
  afterAll(async () => {
    await env?.cleanup();
    if (bin) rmSync(bin, { recursive: true, force: true });
  });

  /** A CLI command that must succeed; its stderr is the failure's message. */
  const ok = async (...args: string[]): Promise<void> => {
    const r = await env.nerdr(...args);
    expect(r.code, `nerdr ${args.join(' ')}: ${r.stderr}`).toBe(0);
  };

  const waiting = (): number => {
    try {
      return readdirSync(spool).filter((n) => n.endsWith('.hook')).length;
    } catch {
      return 0;
    }
  };

  it('a backlog of 300 events of 1 MiB for a real agent window is applied within twice the idle supervisor\'s RSS', async () => {
    // a fake claude started as nerdr starts Claude: its window's secret is what a hook holds
    const claude = await startWiredClaude(env, 'bounded-1');
    const secret = claude.env.NERDR_TAB!;
    expect(secret).toBeTruthy();
    const stop = async (p: number) => {
      await ok('supervisor', 'stop');
      await waitFor(() => !pidAlive(p), { what: 'the supervisor stopped' });
    };
    await stop((await env.supervisorPid())!);
    // the idle figure: a supervisor of this tmux (with that window), started afresh and done
    // starting (it answered a command), with nothing in the spool
    await ok('supervisor', 'start');
    const idlePid = await waitFor(() => env.supervisorPid(), { what: 'a supervisor' });
    await ok('ls');
    const idle = peakKb(idlePid);
    await stop(idlePid);

    // JSON just under the payload cap, for that window: each is authenticated, applied and kept
    // in tmux (the window's facts), then deleted
    const payload = JSON.stringify({ hook_event_name: 'Notification', session_id: '0badc0de-0001-4222-8333-444455556666', message: 'x'.repeat(MAX_PAYLOAD_BYTES - 200) });
    expect(payload.length).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    const t0 = BigInt(Date.now()) * 1_000_000n;
    for (let i = 0; i < 300; i++) writeSpoolFile(spool, { secret, agent: 'claude', timeNs: t0 + BigInt(i), seq: i, payload });
    expect(waiting()).toBe(300);

    await ok('supervisor', 'start');
    const pid = await waitFor(async () => {
      const p = await env.supervisorPid();
      return p !== idlePid && p;
    }, { what: 'a new supervisor' });
    await waitFor(() => waiting() === 0, { timeoutMs: 90_000, what: 'the backlog applied' });
    const peak = peakKb(pid);
    const log = readFileSync(serverFiles(env.socketPath, env.env).log, 'utf8');
    process.stderr.write(`[bounded] spool backlog of 300 × 1 MiB for a window: idle supervisor peak ${Math.round(idle / 1024)} MB, with the backlog ${Math.round(peak / 1024)} MB\n`);
    // applied, not refused: the window's events, not strangers'
    expect(log).not.toMatch(/spool: .*(refused|moved aside|discarded)/);
    expect(peak).toBeLessThan(2 * idle);
  }, 180_000);

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
      await ok('supervisor', 'stop');
      await waitFor(() => !pidAlive(before), { what: 'the last supervisor stopped' });
    }
    await ok('supervisor', 'start');
    const pid = await waitFor(() => env.supervisorPid(), { what: 'a supervisor' });
    const idle = peakKb(pid);

    await ok('fleet', 'add', 'noisy', 'noisy.example');
    const host = async () => (JSON.parse((await env.nerdr('fleet', 'ls', '--json')).stdout) as { name: string; error: { kind: string; message: string; fix: string } | null }[])[0];
    // the host as fleet ls showed it when the link dropped (it retries on its backoff and the
    // error may be gone again by a later look)
    let h: Awaited<ReturnType<typeof host>> | undefined;
    await waitFor(async () => {
      if (existsSync(allRead)) return true;
      const now = await host();
      if (now?.error?.kind !== 'line-too-long') return false;
      h = now;
      return true;
    }, { timeoutMs: 60_000, what: 'the link dropped (or all 200 MB read)' });
    const peak = peakKb(pid);
    await ok('fleet', 'rm', 'noisy');
    process.stderr.write(`[bounded] fleet host sending 200 MB without a newline: idle supervisor peak ${Math.round(idle / 1024)} MB, with the host ${Math.round(peak / 1024)} MB; fleet ls: ${h?.error?.message}\n`);
    expect(existsSync(allRead)).toBe(false);
    expect(h?.error?.kind).toBe('line-too-long');
    expect(h?.error?.message).toContain(`noisy sent a line over ${MAX_LINE_BYTES / (1024 * 1024)} MiB`);
    expect(peak).toBeLessThan(2 * idle);
  }, 120_000);
});
