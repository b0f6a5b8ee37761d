// A pane that floods output, on its own (a flood tier file, run alone: vitest.config.ts): tmux's
// memory stays bounded, the other agent's mirror stays current, the supervisor answers, and
// kill-server completes. Split from foundation.test.ts so the rest of the foundation runs with
// the tests that only wait.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidAlive, startLiveEnv, tmuxAtLeast, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';
import { EXIT_GUARD_WAIT_S } from '../../src/supervisor/create.js';
import { EXIT_UNCONFIRMED_OPTION } from '../../src/supervisor/discover.js';

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

describe.skipIf(!tmuxAvailable)('a flood is paused for the supervisor, and its screen taken from tmux (docs/mirror.md, "Floods")', () => {
  let env: LiveEnv;
  beforeAll(async () => {
    env = await startLiveEnv();
  });
  afterAll(async () => {
    await env?.cleanup();
  });

  const log = (): string => env.supervisorLog();

  it('two programs that print millions of lines and exit: each mirror ends as tmux\'s screen, each exit is seen with its status before the guard\'s own limit', async () => {
    const wins: { name: string; win: string; last: string; endFile: string }[] = [];
    for (const [i, lines] of [2_000_000, 1_200_000].entries()) {
      const name = `flood${i}`;
      const endFile = path.join(env.home, `${name}.end`);
      // the program's own clock of its end, in ms, written just before it exits
      const r = await env.nerdr('new', '-d', '--name', name, '--cmd', `seq 1 ${lines}; printf 'FLOOD-END-${i}\\n'; date +%s%3N > '${endFile}'; exit ${3 + i}`);
      expect(r.code, r.stderr).toBe(0);
      wins.push({ name, win: r.stdout.trim(), last: String(lines), endFile });
    }
    for (const w of wins) {
      const deadAt = await waitFor(async () => ((await env.tmuxOk('display', '-p', '-t', w.win, '#{pane_dead}')).trim() === '1' ? Date.now() : null), { what: `${w.name} to end`, timeoutMs: 60_000, intervalMs: 50 });
      const endedAt = Number(readFileSync(w.endFile, 'utf8').trim());
      // released by the supervisor (its marker, or the flood's release), not by the guard's own
      // limit: the guard marks the pane when it gave up (a timing says nothing on a loaded machine)
      console.log(`${w.name}: pane dead ${deadAt - endedAt} ms after its program's end (the guard gives up after ${EXIT_GUARD_WAIT_S} s)`);
      expect((await env.tmuxOk('show-options', '-pqv', '-t', w.win, EXIT_UNCONFIRMED_OPTION)).trim()).toBe('');
      const row = await waitFor(async () => (await env.lsJson()).find((x) => x.name === w.name && x.state === 'exited'), { what: `${w.name} exited in ls` });
      // tmux 3.3a can list a guarded pane without its status (exit-guard.test.ts); the guard keeps it
      if (!(tmuxAtLeast(3, 3) && !tmuxAtLeast(3, 4) && !row.exitStatus)) expect(String(row.exitStatus)).toBe(String(3 + Number(w.name.slice(-1))));
      // the mirror is tmux's screen, line for line
      // less tmux's own "Pane is dead" line, which no program wrote (tmux scrolls the screen by a line for it)
      const screen = (await env.tmuxOk('capture-pane', '-p', '-t', w.win)).split('\n').map((l) => l.trimEnd()).filter((l) => !/^Pane is dead/.test(l)).join('\n').replace(/\n+$/, '');
      let last = '';
      const mirror = await waitFor(async () => {
        // a screen taken from the dead pane has tmux's line too (the supervisor takes one at the
        // death of a pane that flooded: output dropped for it while paused is in no seed)
        last = (await env.nerdr('read', w.name)).stdout;
        const text = last.replace(/\n+$/, '').replace(/\n+Pane is dead[^\n]*$/, '');
        return text.endsWith(screen) && text.split('\n').length <= screen.split('\n').length + 1 ? text : null;
      }, { what: `${w.name}'s mirror to match capture-pane`, timeoutMs: 10_000 }).catch((err: Error) => {
        const tail = (t: string) => JSON.stringify(t.split('\n').slice(-4));
        const said = log().trim().split('\n').filter((l) => l.includes(`${w.name} (`)).slice(-6).join(' | ');
        throw new Error(`${err.message}; the mirror ends ${tail(last)} (${last.split('\n').length} lines), tmux's screen ${tail(screen)} (${screen.split('\n').length}); the log: ${said}`);
      });
      expect(mirror).toContain(`${w.last}\nFLOOD-END-${w.name.slice(-1)}`);
      // the lines above the screen came with the last screen taken: read reaches past it
      const older = (await env.nerdr('read', w.name, '--lines', '60')).stdout;
      const n = Number(w.last);
      expect(older).toContain(`${n - 50}\n${n - 49}\n`);
    }
    // a flood is output faster than the gate's 128 KiB in 100 ms as the supervisor reads it; on a
    // loaded machine the smaller one may come slower than that (then it is parsed, and tmux's
    // pause-after covers a supervisor that falls behind), so at least the larger one is a flood
    const text = log();
    for (const w of wins) console.log(`${w.name}: ${new RegExp(`${w.name} \\(%\\d+\\): its output floods`).test(text) ? 'a flood' : 'not taken for a flood'}`);
    expect(text).toMatch(/flood0 \(%\d+\): its output floods/);
  }, 120_000);

  it('a program that floods for a while: nerdr explain says so, the light is working, and once it is quiet the flood calms', async () => {
    // numbers, not `yes`: the quiet rule goes by the screen changing, and a screen of y's never does
    const r = await env.nerdr('new', '-d', '--name', 'yes', '--cmd', 'timeout 4 seq 1 1000000000; printf "QUIET\\n"; exec sleep 1000');
    expect(r.code, r.stderr).toBe(0);
    const explained = await waitFor(async () => {
      const e = await env.nerdr('explain', 'yes');
      // the screens taken while it floods differ: the quiet rule says working
      return /output: floods for [\d.]+s: not parsed, its screen taken from tmux every 250 ms/.test(e.stdout) && /^yes \(unknown, @\d+ %\d+\): working/.test(e.stdout) ? e.stdout : null;
    }, { what: 'explain to say the output floods, and the window works', timeoutMs: 15_000, intervalMs: 200 });
    expect(explained).toMatch(/authority: screen/);
    const json = JSON.parse((await env.nerdr('explain', 'yes', '--json')).stdout) as { flood: { since: number; everyMs: number } | null };
    expect(json.flood?.everyMs).toBe(250);
    await waitFor(async () => (await env.nerdr('read', 'yes')).stdout.includes('QUIET'), { what: 'QUIET in the mirror', timeoutMs: 20_000 });
    await waitFor(async () => !(await env.nerdr('explain', 'yes')).stdout.includes('floods for'), { what: 'the flood to calm', timeoutMs: 10_000 });
    expect(log()).toMatch(/yes \(%\d+\): its output calmed after [\d.]+ s of flood \(\d+ screens taken\)/);
  }, 60_000);
});

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
