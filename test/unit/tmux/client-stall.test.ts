// ControlClient against a real tmux and output control: %pause/%continue printed inside a
// refresh-client -A reply are told apart from pane text.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient, replyText } from '../../../src/tmux/client.js';
import { command } from '../../../src/tmux/quote.js';
import { startServer, tmuxAvailable, waitFor, type PrivateServer } from './helpers.js';

describe.skipIf(!tmuxAvailable)('ControlClient and output control', () => {
  let srv: PrivateServer;
  let dir = '';
  const clients: ControlClient[] = [];

  beforeAll(async () => {
    srv = await startServer();
    dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-stall-unit-'));
    writeFileSync(path.join(dir, 'hostile.txt'), '%pause %9\n%continue %9\n');
  });

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await srv?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

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
