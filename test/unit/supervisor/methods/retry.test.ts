import { rmSync } from 'node:fs';
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
 * A message the supervisor was typing into `name` when it stopped, and the supervisor that came
 * after it (its receipt has retryText: it may have been typed in).
 */
async function typedWhenStopped(setup: Parameters<typeof startRig>[0], name: string): Promise<{ rig: Rig; id: string }> {
  const first = await startRig(setup);
  await first.wait(300);
  // the supervisor is gone before tmux answers the paste (it never does)
  const channel = first.channel();
  const real = channel.send.bind(channel);
  channel.send = (cmds, done) => (cmds.some((c) => c.includes('paste-buffer')) ? void first.tmux.lines.push(cmds) : real(cmds, done));
  const { id } = await call(send, hostOf(first), { target: name, message: 'run the tests' });
  expect(first.tmux.sent('paste-buffer')).toHaveLength(1);
  await first.sup.stop();
  const rig = await startRig(setup, { stateDir: first.stateDir });
  rigs.push(rig);
  // the first rig's folder goes with the second
  rigs.unshift({ ...first, done: async () => rmSync(first.stateDir, { recursive: true, force: true }) });
  return { rig, id };
}

describe('nerdr.retry', () => {
  it('queues again, as a new message, a message that may have been typed in', async () => {
    const { rig, id } = await typedWhenStopped((t) => void t.addPane({ name: 'api', screen: IDLE }), 'api');
    expect(rig.sup.messages.receipt(id)?.receipt.retryText).toBe('run the tests');
    const r = await call(retry, hostOf(rig), { id });
    expect(r).toMatchObject({ target: '@1', position: 1, exited: false, retried: id });
    expect(r.id).not.toBe(id);
    await expect(call(retry, hostOf(rig), { id })).rejects.toMatchObject({ code: 'not_retryable' });
  });

  it("an agent window may not retry a message for a window it did not start", async () => {
    const { rig, id } = await typedWhenStopped((t) => {
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
