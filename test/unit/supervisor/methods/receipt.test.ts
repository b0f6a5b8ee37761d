import { afterEach, describe, expect, it } from 'vitest';
import { receipt } from '../../../../src/supervisor/methods/receipt.js';
import { startRig, type Rig } from '../harness.js';
import { call, fakeRequest, hostOf } from './call.js';
import { IDLE, show, WORKING } from './screens.js';

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

describe('nerdr.receipt', () => {
  it("answers a message's receipt; with follow, a stream of each step until it closes", async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api', screen: WORKING }));
    await rig.wait(300);
    const a = rig.sup.agents.get('%1')!;
    const { id } = rig.sup.messages.enqueue(a, 'run the tests');
    const req = fakeRequest();
    const r = await call(receipt, hostOf(rig), { id, follow: true }, req);
    expect(r).toMatchObject({ receipt: { id, pastedAt: null, closedAt: null }, window: '@1', name: 'api' });
    expect(req.streamed()).toBe(true);
    // at the prompt: typed in, its turn starts and ends
    show(rig.channel(), '%1', IDLE);
    await rig.wait(4000);
    show(rig.channel(), '%1', WORKING);
    await rig.wait(300);
    const steps = req.lines as { event: string; data: { id: string; pastedAt: number | null } }[];
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.every((s) => s.event === 'receipt' && s.data.id === id)).toBe(true);
    expect(steps.some((s) => s.data.pastedAt !== null)).toBe(true);
    expect(rig.sup.messages.receipt(id)!.receipt.startedAt).not.toBeNull();
  });

  it('without follow it answers once, with no stream', async () => {
    rig = await startRig((t) => void t.addPane({ screen: WORKING }));
    const { id } = rig.sup.messages.enqueue(rig.sup.agents.get('%1')!, 'later');
    const req = fakeRequest();
    expect((await call(receipt, hostOf(rig), { id }, req)).receipt.id).toBe(id);
    expect(req.streamed()).toBe(false);
  });

  it('an unknown id is unknown_message; a follow that is not a boolean invalid_params', async () => {
    rig = await startRig((t) => void t.addPane());
    await expect(call(receipt, hostOf(rig), { id: 'nope' })).rejects.toMatchObject({ code: 'unknown_message' });
    await expect(call(receipt, hostOf(rig), { id: 'nope', follow: 'yes' })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.receipt: follow must be a boolean, not a string' });
  });
});
