import { afterEach, describe, expect, it } from 'vitest';
import { wait } from '../../../../src/supervisor/methods/wait.js';
import { startRig, type Rig } from '../harness.js';
import { call, fakeRequest, hostOf } from './call.js';
import { IDLE, show, WORKING } from './screens.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

describe('nerdr.wait', () => {
  it('answers once the window reaches one of the states', async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api', screen: WORKING }));
    await rig.wait(300);
    const base = rig.sup.listenerCount('change');
    let answer: { target: string; state: string; agent: { name: string } } | null = null;
    void call(wait, hostOf(rig), { target: 'api', until: ['idle', 'done'] }).then((r) => (answer = r));
    await rig.wait(300);
    expect(answer).toBeNull();
    show(rig.channel(), '%1', IDLE);
    await rig.wait(4000);
    expect(answer).toMatchObject({ target: '@1', agent: { name: 'api' } });
    expect(['idle', 'done']).toContain(answer!.state);
    expect(rig.sup.listenerCount('change')).toBe(base);
  });

  it('timeoutMs: timeout, naming the state it is in', async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api', screen: WORKING }));
    await rig.wait(300);
    const r = call(wait, hostOf(rig), { target: 'api', timeoutMs: 1000 });
    const failed = expect(r).rejects.toMatchObject({ code: 'timeout', message: 'timed out after 1 s; api is working' });
    await rig.wait(1000);
    await failed;
  });

  it('the window closes: agent_gone; the client hangs up: aborted, and no listener is left', async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api', screen: WORKING }));
    await rig.wait(300);
    const base = rig.sup.listenerCount('change');
    const gone = expect(call(wait, hostOf(rig), { target: 'api' })).rejects.toMatchObject({ code: 'agent_gone' });
    const req = fakeRequest();
    const aborted = expect(call(wait, hostOf(rig), { target: 'api' }, req)).rejects.toMatchObject({ code: 'aborted' });
    req.hangUp();
    await aborted;
    rig.tmux.panes.delete('%1');
    rig.channel().notify('window-close', '@1');
    await rig.wait(50);
    await gone;
    expect(rig.sup.listenerCount('change')).toBe(base);
  });

  it('a state nerdr does not have is invalid_params', async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api' }));
    await expect(call(wait, hostOf(rig), { target: 'api', until: ['finished'] })).rejects.toMatchObject({ code: 'invalid_params', message: expect.stringMatching(/^nerdr\.wait: until\.0: /) });
    await expect(call(wait, hostOf(rig), { target: 'api', timeoutMs: -1 })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.wait: timeoutMs must be 0 (no limit) or more' });
  });
});

