import { afterEach, describe, expect, it } from 'vitest';
import { explain } from '../../../../src/supervisor/methods/explain.js';
import { startRig, type Rig } from '../harness.js';
import { call, hostOf } from './call.js';
import { IDLE } from './screens.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});


describe('nerdr.explain', () => {
  it("answers the row, the arbiter's view and the detection that set the state", async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api', screen: IDLE }));
    await rig.wait(300);
    const r = await call(explain, hostOf(rig), { target: 'api' });
    expect(r).toMatchObject({ name: 'api', window: '@1', state: 'idle', now: rig.time.now() });
    expect(r.detection).toMatchObject({ state: 'idle', blank: false });
    expect(r.detection.manifest).toBeTruthy();
    expect(r.arbiter).toMatchObject({ state: 'idle' });
  });

  it('an unknown target is unknown_target, naming the agents there are', async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api' }));
    await expect(call(explain, hostOf(rig), { target: 'web' })).rejects.toMatchObject({ code: 'unknown_target', message: 'no agent "web"; agents: api (@1)' });
  });

  it('two windows of one name are ambiguous_target', async () => {
    rig = await startRig((t) => {
      t.addPane({ name: 'api' });
      t.addPane({ name: 'api' });
    });
    await expect(call(explain, hostOf(rig), { target: 'api' })).rejects.toMatchObject({ code: 'ambiguous_target' });
    expect((await call(explain, hostOf(rig), { target: '@2' })).pane).toBe('%2');
  });

  it('a missing target is invalid_params, with what the method takes as the fix', async () => {
    rig = await startRig();
    await expect(call(explain, hostOf(rig), {})).rejects.toMatchObject({
      code: 'invalid_params',
      message: 'nerdr.explain: target is missing: expected a string',
      fix: expect.stringMatching(/^nerdr\.explain takes \{target\}; docs\/socket-protocol\.md/),
    });
  });
});
