import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { QueueStore } from '../../../../src/store/queue.js';
import { retry } from '../../../../src/supervisor/methods/retry.js';
import { startRig, type Rig } from '../harness.js';
import { call, hostOf } from './call.js';
import { BOSS_SECRET, IDLE, family } from './screens.js';

const rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0).reverse()) await r.done();
});

/**
 * A message an older nerdr was typing into the window `agentId` when its supervisor stopped (its
 * paste set nothing in tmux), and the supervisor that came after: it may have been typed in, so
 * its receipt keeps its text for --retry.
 */
async function markedByOlderNerdr(setup: Parameters<typeof startRig>[0], agentId: string): Promise<{ rig: Rig; id: string }> {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'nerdr-retry-'));
  const id = '0a1b2c3d4e5f';
  new QueueStore(path.join(stateDir, 'queues')).save(agentId, {
    messages: [{ id, text: 'run the tests', queuedAt: 1, typingAt: 2 }],
    stalledAt: null,
    receipts: [{ id, queuedAt: 1, pastedAt: null, startedAt: null, states: [], stalledAt: null, closedAt: null, closed: null }],
  });
  const rig = await startRig(setup, { stateDir });
  rigs.push(rig);
  // the folder goes with the rig
  rigs.unshift({ ...rig, done: async () => rmSync(stateDir, { recursive: true, force: true }) });
  await rig.wait(300);
  return { rig, id };
}

describe('nerdr.retry', () => {
  it('queues again, as a new message, a message that may have been typed in', async () => {
    const { rig, id } = await markedByOlderNerdr((t) => void t.addPane({ name: 'api', screen: IDLE }), 'a1');
    expect(rig.sup.messages.receipt(id)?.receipt.retryText).toBe('run the tests');
    const r = await call(retry, hostOf(rig), { id });
    expect(r).toMatchObject({ target: '@1', position: 1, exited: false, retried: id });
    expect(r.id).not.toBe(id);
    await expect(call(retry, hostOf(rig), { id })).rejects.toMatchObject({ code: 'not_retryable' });
  });

  it("an agent window may not retry a message for a window it did not start", async () => {
    const { rig, id } = await markedByOlderNerdr((t) => {
      family(t);
      t.pane('%3').screen = IDLE;
    }, 'a3');
    await expect(call(retry, hostOf(rig), { id, caller: BOSS_SECRET })).rejects.toMatchObject({ code: 'not_permitted' });
  });

  it('an unknown id is unknown_message; a missing one invalid_params', async () => {
    const rig = await startRig((t) => void t.addPane());
    rigs.push(rig);
    await expect(call(retry, hostOf(rig), { id: 'nope' })).rejects.toMatchObject({ code: 'unknown_message' });
    await expect(call(retry, hostOf(rig), { caller: 'x' })).rejects.toMatchObject({ code: 'invalid_params', message: 'nerdr.retry: id is missing: expected a string' });
  });
});
