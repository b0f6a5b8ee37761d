// The real channel's two control clients start one after the other: the output keeper only once
// the supervisor's own client has attached (src/supervisor/channel.ts). Two control clients
// identifying themselves at once can crash tmux (holder.ts, ifDeadPane; live: holder-hooks.test.ts).
// And the configuration errors tmux hands a control client are said in the log.

import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { controlClientChannel } from '../../../src/supervisor/channel.js';
import type { ControlClient } from '../../../src/tmux/client.js';
import type { OutputKeeper } from '../../../src/tmux/keeper.js';
import { settle, startRig } from './harness.js';

class FakeClient extends EventEmitter {
  isClosed = false;
  kill(): void {
    this.isClosed = true;
    this.emit('exit', 'killed');
  }
  async close(): Promise<void> {
    this.kill();
  }
}

const keepers: { pid: number; closed: boolean }[] = [];
const startKeeper = () => {
  const k = { pid: 4000 + keepers.length, closed: false, close() { this.closed = true; } };
  keepers.push(k);
  return k as unknown as OutputKeeper;
};

describe('the control channel and its output keeper', () => {
  it('starts the keeper once the client has attached, not before, and ends it with the client', () => {
    keepers.length = 0;
    const client = new FakeClient();
    const channel = controlClientChannel(client as unknown as ControlClient, startKeeper);
    expect(keepers).toHaveLength(0);
    expect(channel.companions).toEqual([]);
    client.emit('attached');
    expect(keepers).toHaveLength(1);
    // the stale-client sweep spares it, read after the attach
    expect(channel.companions).toEqual([4000]);
    client.emit('attached'); // only the first attach starts one
    expect(keepers).toHaveLength(1);
    channel.kill();
    expect(keepers[0]!.closed).toBe(true);
  });

  it('starts no keeper for a client that ended before it attached', async () => {
    keepers.length = 0;
    const client = new FakeClient();
    const channel = controlClientChannel(client as unknown as ControlClient, startKeeper);
    await channel.close();
    client.emit('attached');
    expect(keepers).toHaveLength(0);
    expect(channel.companions).toEqual([]);
  });
});

describe('configuration errors tmux hands the supervisor', () => {
  it('are logged, without their control characters, not dropped', async () => {
    const rig = await startRig();
    try {
      rig.channel().notify('config-error', '/root/.tmux.conf:3: unknown command: sett\x1b[2J');
      await settle();
      expect(rig.logs).toContain('warn tmux reported a configuration error: /root/.tmux.conf:3: unknown command: sett[2J');
    } finally {
      await rig.done();
    }
  });
});
