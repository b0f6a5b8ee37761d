// A stalled supervisor holds up no agent, and catches up by itself (issue: "lights that never
// lie"). The supervisor is stopped (SIGSTOP) for 8 s while one window floods output and another
// prints a line every 50 ms, with no user client attached (the case in which tmux used to stop
// reading the panes: every client it had was nerdr's, and too far behind). Each program measures
// how long its own writes were held up; neither may be held more than 1 s. After SIGCONT the
// ticking window's mirror must show its newest line within 2 s, with no nerdr command sending
// tmux anything (`read` is answered from the supervisor's memory).

import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';
import { serverFiles } from '../../src/paths.js';
import { request } from '../../src/supervisor/socket/client.js';

const STOP_MS = 8000;

// A stand-in for `claude` run as `claude flood` or `claude tick`. It writes to its terminal
// (synchronous for a tty in Node: a write blocks while tmux does not read the pane) and keeps in
// $HOLD_DIR/<mode>.held the longest time one write (flood) or one 50 ms tick (tick, less the
// 50 ms) was held up, and in <mode>.count how far it got.
const PROGRAM = `#!/usr/bin/env node
import { existsSync, renameSync, writeFileSync } from 'node:fs';
const dir = process.env.HOLD_DIR;
const mode = process.argv.includes('flood') ? 'flood' : 'tick';
let held = 0;
// written aside and renamed: the test never reads a file half rewritten
const put = (name, text) => { writeFileSync(dir + '/' + name + '.tmp', text); renameSync(dir + '/' + name + '.tmp', dir + '/' + name); };
const note = (count) => { put(mode + '.held', String(held)); put(mode + '.count', String(count)); };
if (mode === 'flood') {
  const line = 'y'.repeat(78) + '\\r\\n';
  const chunk = line.repeat(200);
  let sent = 0;
  const pump = () => {
    for (let k = 0; k < 10; k++) {
      const t = performance.now();
      process.stdout.write(chunk);
      held = Math.max(held, performance.now() - t);
      sent += chunk.length;
    }
    note(sent);
    if (!existsSync(dir + '/end') && sent < 200e6) setImmediate(pump);
  };
  pump();
} else {
  let n = 0;
  let last = performance.now();
  setInterval(() => {
    const t = performance.now();
    held = Math.max(held, t - last - 50);
    last = t;
    n++;
    process.stdout.write('tick ' + n + '\\r\\n');
    held = Math.max(held, performance.now() - t);
    note(n);
  }, 50);
}
`;

describe.skipIf(!tmuxAvailable)('a stopped supervisor holds up no agent', () => {
  let env: LiveEnv;
  let root = '';
  let dir = '';

  beforeAll(async () => {
    root = path.join(os.tmpdir(), `nerdr-holdup-${process.pid}-${Date.now()}`);
    const bin = path.join(root, 'bin');
    dir = path.join(root, 'hold');
    mkdirSync(bin, { recursive: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(bin, 'claude'), PROGRAM);
    chmodSync(path.join(bin, 'claude'), 0o755);
    env = await startLiveEnv({ env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOLD_DIR: dir } });
  }, 60_000);

  afterAll(async () => {
    if (dir) writeFileSync(path.join(dir, 'end'), '');
    await env?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const num = (file: string): number => {
    try {
      return Number(readFileSync(path.join(dir, file), 'utf8')) || 0;
    } catch {
      return 0;
    }
  };

  it('SIGSTOP for 8 s: no program held up more than 1 s, the mirror caught up within 2 s', async () => {
    for (const mode of ['tick', 'flood']) {
      const r = await env.nerdrWith(['new', 'claude', '-d', '--name', mode, '--', mode], { timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(0);
    }
    await waitFor(() => num('flood.count') > 5_000_000 && num('tick.count') > 10, { timeoutMs: 30_000, what: 'both programs running' });
    await waitFor(async () => /tick \d+/.test((await env.nerdr('read', 'tick')).stdout), { timeoutMs: 20_000, what: 'the ticks in the mirror' });
    // what came before the stop (a busy start on a loaded machine) is not what is measured
    const heldBefore = { tick: num('tick.held'), flood: num('flood.held') };

    const sup = await env.supervisorPid();
    expect(sup).not.toBeNull();
    const sentAtStop = num('flood.count');
    process.kill(sup!, 'SIGSTOP');
    try {
      // the condition under test, not a wait for something
      await new Promise((r) => setTimeout(r, STOP_MS));
    } finally {
      process.kill(sup!, 'SIGCONT');
    }
    const resumed = Date.now();
    const tickAtResume = num('tick.count');
    const flooded = num('flood.count') - sentAtStop;

    let seen = 0;
    // asked over the socket as `nerdr read` asks it: a node start per look (0.3–1 s on a loaded
    // machine) would be most of what is measured
    const socket = serverFiles(env.socketPath, env.env).socket;
    await waitFor(
      async () => {
        const { text } = (await request(socket, 'nerdr.read', { target: 'tick', lines: 5 }, { timeoutMs: 10_000 })) as { text: string };
        const m = /tick (\d+)\s*$/.exec(text.trimEnd());
        seen = m ? Number(m[1]) : 0;
        return seen >= tickAtResume;
      },
      { timeoutMs: 15_000, intervalMs: 50, what: `the mirror to show tick ${tickAtResume}` },
    );
    const caughtUpMs = Date.now() - resumed;
    writeFileSync(path.join(dir, 'end'), '');

    const held = { tick: num('tick.held'), flood: num('flood.held') };
    console.log(
      `stop ${STOP_MS} ms: flood wrote ${Math.round(flooded / 1e6)} MB meanwhile; held up at most: tick ${Math.round(held.tick)} ms, flood ${Math.round(held.flood)} ms (before the stop: ${Math.round(heldBefore.tick)} / ${Math.round(heldBefore.flood)} ms); mirror caught up ${caughtUpMs} ms after SIGCONT`,
    );
    expect(held.tick).toBeLessThan(1000);
    expect(held.flood).toBeLessThan(1000);
    // the flood went on during the stop: more than a pipe's worth of output
    expect(flooded).toBeGreaterThan(1_000_000);
    expect(caughtUpMs).toBeLessThan(2000);
    expect(existsSync(path.join(dir, 'end'))).toBe(true);
  }, 120_000);
});
