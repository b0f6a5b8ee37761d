import { afterEach, describe, expect, it } from 'vitest';
import { stopAgent } from '../../../../src/supervisor/methods/stop-agent.js';
import { startRig, type Rig } from '../harness.js';
import { call, hostOf } from './call.js';
import { BOSS_SECRET, family } from './screens.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

describe('nerdr.stop-agent', () => {
  it('kills the window; the scan that follows forgets it', async () => {
    rig = await startRig((t) => {
      t.addPane({ name: 'api' });
      t.addPane({ name: 'web' });
    });
    expect(await call(stopAgent, hostOf(rig), { target: 'web' })).toEqual({ target: '@2', stopped: true });
    expect(rig.tmux.sent('kill-window')).toEqual([['kill-window', '-t', '@2']]);
    rig.channel().notify('window-close', '@2');
    await rig.wait(50);
    expect([...rig.sup.agents.keys()]).toEqual(['%1']);
  });

  it('an agent window may not stop a window it did not start', async () => {
    rig = await startRig(family);
    await expect(call(stopAgent, hostOf(rig), { target: 'other', caller: BOSS_SECRET })).rejects.toMatchObject({ code: 'not_permitted' });
    expect(rig.tmux.sent('kill-window')).toEqual([]);
  });

  it('a target that is not a string is invalid_params', async () => {
    rig = await startRig((t) => void t.addPane());
    await expect(call(stopAgent, hostOf(rig), { target: 1 })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.stop-agent: target must be a string, not a number' });
    expect(rig.tmux.sent('kill-window')).toEqual([]);
  });
});
