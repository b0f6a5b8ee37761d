import { afterEach, describe, expect, it } from 'vitest';
import { retry } from '../../../../src/supervisor/methods/retry.js';
import { send } from '../../../../src/supervisor/methods/send.js';
import { startRig, type Rig } from '../harness.js';
import { call, hostOf } from './call.js';
import { BOSS_SECRET, IDLE, family } from './screens.js';

const rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0).reverse()) await r.done();
});

/**
 * A message whose paste tmux never answered (the control client closed): it may have been
 * typed in, so its receipt keeps its text for --retry.
 */
async function typedAnswerLost(setup: Parameters<typeof startRig>[0], name: string): Promise<{ rig: Rig; id: string }> {
  const rig = await startRig(setup);
  rigs.push(rig);
  await rig.wait(300);
  const channel = rig.channel();
  const real = channel.send.bind(channel);
  const closed = { ok: false, skipped: true, lines: [Buffer.from('control client closed')] };
  channel.send = (cmds, done) => {
    if (!cmds.some((c) => c.includes('paste-buffer'))) return real(cmds, done);
    rig.tmux.lines.push(cmds);
    queueMicrotask(() => done(cmds.map(() => closed)));
  };
  const { id } = await call(send, hostOf(rig), { target: name, message: 'run the tests' });
  await rig.wait(50);
  expect(rig.tmux.sent('paste-buffer')).toHaveLength(1);
  return { rig, id };
}

describe('nerdr.retry', () => {
  it('queues again, as a new message, a message that may have been typed in', async () => {
    const { rig, id } = await typedAnswerLost((t) => void t.addPane({ name: 'api', screen: IDLE }), 'api');
    expect(rig.sup.messages.receipt(id)?.receipt.retryText).toBe('run the tests');
    const r = await call(retry, hostOf(rig), { id });
    expect(r).toMatchObject({ target: '@1', position: 1, exited: false, retried: id });
    expect(r.id).not.toBe(id);
    await expect(call(retry, hostOf(rig), { id })).rejects.toMatchObject({ code: 'not_retryable' });
  });

  it("an agent window may not retry a message for a window it did not start", async () => {
    const { rig, id } = await typedAnswerLost((t) => {
      family(t);
      t.pane('%3').screen = IDLE;
    }, 'other');
    await expect(call(retry, hostOf(rig), { id, caller: BOSS_SECRET })).rejects.toMatchObject({ code: 'not_permitted' });
  });

  it('an unknown id is unknown_message; a missing one invalid_params', async () => {
    const rig = await startRig((t) => void t.addPane());
    rigs.push(rig);
    await expect(call(retry, hostOf(rig), { id: 'nope' })).rejects.toMatchObject({ code: 'unknown_message' });
    await expect(call(retry, hostOf(rig), { caller: 'x' })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.retry: id is missing: expected a string' });
  });
});
