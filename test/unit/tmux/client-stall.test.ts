// ControlClient against a real tmux when the reader falls behind: pause-after pauses panes,
// tmux holds their %pause lines until it is given a reason to write (src/tmux/stall.ts), and
// %pause/%continue printed inside a refresh-client -A reply are told apart from pane text.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient, replyText } from '../../../src/tmux/client.js';
import { command } from '../../../src/tmux/quote.js';
import { startServer, tmuxAvailable, waitFor, type PrivateServer } from './helpers.js';

// coloured lines until <dir>/end exists (90 s and 300 MB at most: longer than three stalls and
// their waits, so a pane never stops on its own while the test accounts for it), then nothing
const FLOODER = `
const fs = require('node:fs');
const end = process.argv[2] + '/end';
const started = Date.now();
let n = 0, sent = 0;
function pump() {
  for (let k = 0; k < 10; k++) {
    let s = '';
    for (let i = 0; i < 200; i++) { n++; s += '\\x1b[3' + (n % 8) + 'mline ' + n + '\\x1b[0m \\x1b[1mxxxxxxxxxxxxxxxx\\x1b[0m\\r\\n'; }
    sent += s.length;
    process.stdout.write(s);
  }
  if (!fs.existsSync(end) && Date.now() - started < 90000 && sent < 300e6) setImmediate(pump);
  else setInterval(() => undefined, 1 << 30);
}
pump();
`;

/** Blocks this thread (timers, pipes: everything) as a stopped supervisor would be. */
function stall(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe.skipIf(!tmuxAvailable)('ControlClient when the reader falls behind', () => {
  let srv: PrivateServer;
  let dir = '';
  const clients: ControlClient[] = [];

  beforeAll(async () => {
    srv = await startServer();
    dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-stall-unit-'));
    writeFileSync(path.join(dir, 'flood.cjs'), FLOODER);
    writeFileSync(path.join(dir, 'hostile.txt'), '%pause %9\n%continue %9\n');
  });

  afterAll(async () => {
    writeFileSync(path.join(dir, 'end'), '');
    for (const c of clients) await c.close().catch(() => undefined);
    await srv?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('after a 2.5 s stall, the %pause of every pane tmux paused arrives without a command of ours', async () => {
    const panes: string[] = [];
    for (let i = 0; i < 3; i++) {
      const out = await srv.tmux('new-window', '-d', '-t', '=user:', '-P', '-F', '#{pane_id}', `exec node '${dir}/flood.cjs' '${dir}'`);
      panes.push(out.trim());
    }
    const c = new ControlClient(srv.socketPath, 'user', { quietMs: 500 });
    clients.push(c);
    await c.run('refresh-client -f pause-after=1');
    const lastOutput = new Map<string, number>();
    const paused = new Set<string>();
    c.on('output', (p) => lastOutput.set(p, Date.now()));
    c.on('notification', (name, args) => {
      if (name === 'pause') paused.add(args.trim());
    });
    await waitFor('output from every flooding pane', () => panes.every((p) => lastOutput.has(p)));

    // tmux pauses a pane only if it held output of it when we stopped: stall until it does
    const nudgesBefore = c.nudges;
    for (let attempt = 1; attempt <= 3 && paused.size === 0; attempt++) {
      stall(2500);
      const resumed = Date.now();
      // Each pane either still sends output well after the backlog we missed, or was paused and
      // said so. Nothing is sent from here on but what the client sends by itself.
      const accounted = (p: string): boolean => paused.has(p) || (lastOutput.get(p) ?? 0) > resumed + 2000;
      await waitFor(`every pane to send output again or report its pause (stall ${attempt})`, () => panes.every(accounted), 8000);
    }
    // Every pane was accounted for after each stall (the waits above): a paused pane whose %pause
    // never came would have failed them. Whether tmux paused any depends on how much output it
    // held when we woke, which a loaded machine makes less: say which path this run took.
    if (paused.size === 0) {
      console.log('tmux paused no pane in 3 stalls (a loaded machine floods less): only the flowing path was exercised');
      writeFileSync(path.join(dir, 'end'), '');
      return;
    }
    // whether the client had to nudge tmux (stall.ts) or other writes woke it first depends on the
    // machine's load too; the nudge rule itself is tested with a clock in stall.test.ts
    console.log(`${paused.size} pane(s) paused; the client nudged tmux ${c.nudges - nudgesBefore} time(s)`);

    // continuing them brings their output back
    const since = Date.now();
    await c.send([...paused].map((p) => command('refresh-client', '-A', `${p}:continue`)));
    await waitFor('output from every continued pane', () => [...paused].every((p) => (lastOutput.get(p) ?? 0) > since));
    writeFileSync(path.join(dir, 'end'), '');
  }, 60_000);

  it('%pause/%continue inside a refresh-client -A reply are notifications; the same text captured from a pane is not', async () => {
    const pane = (await srv.tmux('new-window', '-d', '-t', '=user:', '-P', '-F', '#{pane_id}', `cat '${dir}/hostile.txt'; exec sleep 60`)).trim();
    const c = new ControlClient(srv.socketPath, 'user');
    clients.push(c);
    await waitFor('the pane to show its text', async () => (await srv.tmux('capture-pane', '-p', '-t', pane)).includes('%continue %9'));
    const notes: string[] = [];
    c.on('notification', (name, args) => {
      if (name === 'pause' || name === 'continue') notes.push(`${name} ${args}`);
    });

    const [p] = await c.send([command('refresh-client', '-A', `${pane}:pause`)]);
    expect(p!.ok).toBe(true);
    const rs = await c.send([command('refresh-client', '-A', `${pane}:continue`), command('capture-pane', '-p', '-t', pane)]);
    expect(rs.map((r) => r.ok)).toEqual([true, true]);
    expect(replyText(rs[0]!)).toBe(''); // the %continue tmux printed in it was taken out
    expect(rs[1]!.lines.map((l) => l.toString()).slice(0, 2)).toEqual(['%pause %9', '%continue %9']);
    expect(notes).toEqual([`pause ${pane}`, `continue ${pane}`]);
  });
});
