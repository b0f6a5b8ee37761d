// A pane that floods output, on its own (a flood tier file, run alone: vitest.config.ts): tmux's
// memory stays bounded, the other agent's mirror stays current, the supervisor answers, and
// kill-server completes. Split from foundation.test.ts so the rest of the foundation runs with
// the tests that only wait.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidAlive, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';

async function newAgent(env: LiveEnv, ...args: string[]): Promise<string> {
  const r = await env.nerdr('new', ...args);
  expect(r.code, `nerdr new ${args.join(' ')}: ${r.stderr}`).toBe(0);
  const id = r.stdout.trim();
  expect(id).toMatch(/^@\d+$/);
  return id;
}

async function paneOf(env: LiveEnv, windowId: string): Promise<string> {
  return (await env.tmuxOk('display', '-p', '-t', windowId, '#{pane_id}')).trim();
}

function rssKb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** utime + stime in seconds, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

describe.skipIf(!tmuxAvailable)('foundation: a pane that floods output', () => {
  let env: LiveEnv;
  beforeAll(async () => {
    env = await startLiveEnv();
  });
  afterAll(async () => {
    await env?.cleanup();
  });

  it('yes for 10 s: tmux RSS stays under 50 MB, another agent\'s mirror stays current, kill-server completes', async () => {
    const second = await newAgent(env, 'demo', '-d', '--name', 'second', '--', '--auto', '0');
    const secondPane = await paneOf(env, second);
    await waitFor(async () => (await env.nerdr('read', 'second')).stdout.includes('❯'), { what: 'the second agent\'s prompt in its mirror' });
    const sup = await env.supervisorPid();
    expect(sup).not.toBeNull();
    env.track(sup!);

    await newAgent(env, '-d', '--name', 'flood', '--cmd', 'exec yes');
    const t0 = Date.now();
    const cpu0 = cpuSeconds(sup!);
    let maxRss = 0;
    let samples = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        maxRss = Math.max(maxRss, rssKb(env.serverPid));
        samples++;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    try {
      // once the flood reaches the supervisor's mirror, type into the other agent and read it back
      await waitFor(async () => /^y$/m.test((await env.nerdr('read', 'flood')).stdout), { what: 'the flood in its mirror', timeoutMs: 10_000, intervalMs: 250 });
      const marker = `marker-${Date.now().toString(36)}`;
      await env.tmuxOk('send-keys', '-t', secondPane, '-l', marker);
      const seenAfter = Date.now();
      await waitFor(async () => {
        const r = await env.nerdr('read', 'second');
        if (r.code !== 0) throw new Error(r.stderr);
        return r.stdout.includes(marker);
      }, { what: 'the typed marker in nerdr read second during the flood', timeoutMs: 10_000, intervalMs: 100 });
      const latency = Date.now() - seenAfter;
      // the supervisor answers while flooded
      const ls = await env.nerdrWith(['ls', '--json'], { timeoutMs: 10_000 });
      expect(ls.code, ls.stderr).toBe(0);
      while (Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 100));
      sampling = false;
      await sampler;
      const cpu = cpuSeconds(sup!) - cpu0;
      console.log(`flood: tmux server max RSS ${(maxRss / 1024).toFixed(1)} MB over ${samples} samples; supervisor CPU ${cpu.toFixed(1)} s in ${((Date.now() - t0) / 1000).toFixed(1)} s; marker seen after ${latency} ms`);
      expect(pidAlive(sup!)).toBe(true);
      expect(maxRss).toBeGreaterThan(0);
      expect(maxRss).toBeLessThan(50 * 1024);
      // it was reading: the flood pane's mirror shows yes output
      const flood = await env.nerdr('read', 'flood');
      expect(flood.stdout).toMatch(/^y$/m);
    } finally {
      sampling = false;
      await sampler;
    }
    const t1 = Date.now();
    const k = await env.tmux('kill-server');
    expect(k.code, k.stderr).toBe(0);
    expect(Date.now() - t1).toBeLessThan(10_000);
    await waitFor(() => !pidAlive(env.serverPid), { what: 'the tmux server to be gone' });
    await waitFor(() => !pidAlive(sup!), { what: 'the supervisor to exit after kill-server', timeoutMs: 10_000 });
  }, 60_000);
});
