// Live: a shell pane in a private tmux server; the demo agent started in it by hand is identified
// from the pane's foreground process group, and no longer once it is quit. Needs `npm run build`.

import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identify, type Identification } from '../../src/detect/identify.js';
import { probePane, readPaneProcesses } from '../../src/detect/procfs.js';
import { PaneProber, type ProberEvent } from '../../src/detect/prober.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DEMO = path.join(REPO, 'dist', 'demo', 'agent.js');

const tmuxAvailable = (() => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const server = `nerdr-test-${randomBytes(6).toString('hex')}`;
const env: NodeJS.ProcessEnv = { ...process.env, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
for (const k of Object.keys(env)) if (k === 'TMUX' || k === 'TMUX_PANE' || k.startsWith('NERDR_') || k.startsWith('HERDR_')) delete env[k];

function tmux(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('tmux', ['-L', server, '-f', '/dev/null', ...args], { env, timeout: 10_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`tmux ${args.join(' ')}: ${stderr || err.message}`));
      else resolve(stdout);
    });
  });
}

async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const v = await fn();
      if (v !== null && v !== undefined && v !== false) return v;
    } catch (e) {
      last = (e as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} ${last}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

let panePid = 0;
const started = new Set<number>();

describe.skipIf(!tmuxAvailable)('identify a hand-started agent in a tmux pane', () => {
  beforeAll(async () => {
    if (!existsSync(DEMO)) throw new Error(`${DEMO} is missing: run \`npm run build\` first`);
    // NERDR_AGENT in the pane environment, as `nerdr new --cmd` leaves it: inherited, so never a hint
    await tmux('new-session', '-d', '-s', 't', '-x', '100', '-y', '30', '-e', 'NERDR_AGENT=unknown', 'bash --norc --noprofile');
    panePid = Number((await tmux('display', '-p', '-t', 't:', '#{pane_pid}')).trim());
    expect(panePid).toBeGreaterThan(1);
  });

  afterAll(async () => {
    await tmux('kill-server').catch(() => undefined);
    // tmux 3.3 leaves its socket file behind
    (await import('node:fs')).rmSync(`${process.env.TMUX_TMPDIR || '/tmp'}/tmux-${process.getuid?.() ?? 0}/${server}`, { force: true });
    for (const pid of started) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone with the server */
      }
    }
  });

  async function startDemo(): Promise<Identification> {
    await tmux('send-keys', '-t', 't:', '-l', `${process.execPath} ${DEMO} --title by-hand`);
    await tmux('send-keys', '-t', 't:', 'Enter');
    const id = await waitFor('the demo to be identified', async () => {
      const r = await probePane(panePid);
      return r.agent === 'demo' ? r : null;
    });
    if (id.pid) started.add(id.pid);
    return id;
  }

  async function quitDemo(): Promise<Identification> {
    await tmux('send-keys', '-t', 't:', 'C-c');
    return waitFor('the shell back in the foreground', async () => {
      const r = await probePane(panePid);
      return r.foreground === 'shell' ? r : null;
    });
  }

  it('the shell alone: nothing; demo started by hand: demo; quit: nothing', async () => {
    const before = await waitFor('the shell in the foreground', async () => {
      const r = await probePane(panePid);
      return r.foreground === 'shell' ? r : null;
    });
    expect(before.agent).toBeNull();

    const id = await startDemo();
    expect(id.foreground).toBe('job');
    expect(id.pgid).toBe(id.pid); // the job's leader: bash put it in its own group
    expect(id.why).toContain('demo');

    // the same answer through the ps fallback (no environment there)
    const viaPs = identify(await readPaneProcesses(panePid, { method: 'ps' }), panePid);
    expect(viaPs).toMatchObject({ agent: 'demo', pid: id.pid });

    // cost of one probe with the agent in the foreground
    const n = 20;
    let t = performance.now();
    for (let i = 0; i < n; i++) await probePane(panePid);
    const procMs = (performance.now() - t) / n;
    t = performance.now();
    for (let i = 0; i < 5; i++) identify(await readPaneProcesses(panePid, { method: 'ps' }), panePid);
    const psMs = (performance.now() - t) / 5;
    console.log(`probe cost: /proc ${procMs.toFixed(2)} ms, ps ${psMs.toFixed(2)} ms (mean)`);
    expect(procMs).toBeLessThan(100);

    const after = await quitDemo();
    expect(after.agent).toBeNull();
    t = performance.now();
    for (let i = 0; i < n; i++) await probePane(panePid);
    console.log(`probe cost with the shell in the foreground: /proc ${((performance.now() - t) / n).toFixed(2)} ms (mean)`);
  });

  it('the prober, fed as the supervisor would, turns the pane into an agent and back', async () => {
    const prober = new PaneProber({ clock: Date.now });
    const events: ProberEvent[] = [];
    let timer: NodeJS.Timeout | null = null;
    let stopped = false;
    const schedule = (probeAt: number | null): void => {
      if (timer) clearTimeout(timer);
      timer = null;
      if (probeAt === null || stopped) return;
      timer = setTimeout(() => {
        timer = null;
        if (!prober.beginProbe()) return schedule(prober.step().probeAt);
        void probePane(panePid).then((id) => {
          const step = prober.probeResult(id);
          events.push(...step.events);
          schedule(step.probeAt);
        });
      }, Math.max(0, probeAt - Date.now()));
    };
    try {
      schedule(prober.start().probeAt);
      await waitFor('a first probe', async () => prober.last !== null);
      expect(prober.agent).toBeNull();

      await tmux('send-keys', '-t', 't:', '-l', `${process.execPath} ${DEMO}`);
      await tmux('send-keys', '-t', 't:', 'Enter');
      schedule(prober.foregroundChanged().probeAt); // what the pane_current_command subscription reports
      await waitFor('agent-start demo', async () => events.some((e) => e.type === 'agent-start' && e.agent === 'demo'));
      expect(prober.agent).toBe('demo');

      await tmux('send-keys', '-t', 't:', 'C-c');
      schedule(prober.foregroundChanged().probeAt);
      await waitFor('agent-exit', async () => events.some((e) => e.type === 'agent-exit'));
      expect(events.map((e) => e.type)).toEqual(['agent-start', 'agent-exit']);
      expect(events[1]).toMatchObject({ agent: 'demo', reason: 'exited' });
      expect(prober.agent).toBeNull();
    } finally {
      stopped = true;
      if (timer) clearTimeout(timer);
    }
  });
});
