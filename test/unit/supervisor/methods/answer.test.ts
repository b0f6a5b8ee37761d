import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_AGENT_LIMITS } from '../../../../src/config.js';
import { answer } from '../../../../src/supervisor/methods/answer.js';
import { cancel } from '../../../../src/supervisor/methods/cancel.js';
import { edit } from '../../../../src/supervisor/methods/edit.js';
import { inbox } from '../../../../src/supervisor/methods/inbox.js';
import { send } from '../../../../src/supervisor/methods/send.js';
import { snooze } from '../../../../src/supervisor/methods/snooze.js';
import { supervisorHost } from '../../../../src/supervisor/methods/host.js';
import { startRig, type Rig } from '../harness.js';
import { call, hostOf, CONFIG_FILE } from './call.js';
import { BOSS_SECRET, WORKING, family, show } from './screens.js';

const ASKING = ['nerdr demo agent', '', '╭' + '─'.repeat(40) + '╮', '│ Bash command │', '│   rm -rf build/ │', '│ Do you want to proceed? │', '│ ❯ 1. Yes │', '│   2. No, and tell me what to do differently (esc) │', '╰' + '─'.repeat(40) + '╯', 'Esc to cancel · Enter to confirm'];

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

const helpersMayAnswer = (r: Rig) =>
  supervisorHost(r.sup, { socketPath: '/run/nerdr-test.sock', control: () => ({ scope: 'own', answer: 'helpers', limits: { ...DEFAULT_AGENT_LIMITS }, path: CONFIG_FILE }) });

async function blockedRow(r: Rig) {
  let rows: any[] = [];
  for (let i = 0; i < 50 && !rows.some((x) => x.kind === 'blocked'); i++) {
    await r.wait(100);
    rows = (await call(inbox, hostOf(r), {})).rows;
  }
  return rows.find((x) => x.kind === 'blocked');
}

describe('nerdr.inbox and nerdr.answer', () => {
  it('lists the blocked agent with its dialog; answers only the prompt still shown', async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api', screen: ASKING }));
    const row = await blockedRow(rig);
    expect(row).toMatchObject({ name: 'api', answerable: true, summary: 'Do you want to proceed?', dialog: { options: [{ n: 1, kind: 'approve' }, { n: 2, kind: 'deny' }] } });
    await expect(call(answer, hostOf(rig), { target: 'api', prompt: 'p000000000', choice: 'approve' })).rejects.toMatchObject({ code: 'prompt_changed', message: expect.stringContaining(row.id) });
    expect(rig.tmux.sent('send-keys')).toEqual([]);
    // the keys go one at a time, a beat apart (the rig's clock moves with rig.wait)
    const answered = call(answer, hostOf(rig), { target: 'api', prompt: row.id, choice: 'deny' });
    await rig.wait(500);
    const r = await answered;
    expect(r).toMatchObject({ target: '@1', prompt: row.id, option: { n: 2 }, keys: ['Down', 'Enter'] });
    expect(rig.tmux.sent('send-keys').map((c) => c.at(-1))).toEqual(['Down', 'Enter']);
  });

  it('an agent that no longer waits: the prompt changed, nothing typed', async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api', screen: ASKING }));
    const row = await blockedRow(rig);
    show(rig.channel(), '%1', WORKING);
    for (let i = 0; i < 30 && rig.sup.agents.get('%1')!.state === 'blocked'; i++) await rig.wait(100);
    await expect(call(answer, hostOf(rig), { target: 'api', prompt: row.id, choice: 1 })).rejects.toMatchObject({ code: 'prompt_changed', message: expect.stringContaining('waits for no answer now') });
    expect(rig.tmux.sent('send-keys')).toEqual([]);
  });

  it('a choice the dialog lacks is invalid_choice; params are checked', async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api', screen: ASKING }));
    const row = await blockedRow(rig);
    await expect(call(answer, hostOf(rig), { target: 'api', prompt: row.id, choice: 'always' })).rejects.toMatchObject({ code: 'invalid_choice' });
    await expect(call(answer, hostOf(rig), { target: 'api', prompt: row.id, choice: 'maybe' })).rejects.toMatchObject({ code: 'invalid_params' });
  });

  it('an agent window answers only with [agents] answer = "helpers", and only its helpers', async () => {
    rig = await startRig((t) => {
      family(t);
      for (const p of t.panes.values()) p.screen = ASKING;
    });
    const rows = async () => {
      for (let i = 0; i < 50; i++) {
        const got = (await call(inbox, hostOf(rig!), {})).rows.filter((x: any) => x.kind === 'blocked');
        if (got.length === 3) return got;
        await rig!.wait(100);
      }
      throw new Error('not all blocked');
    };
    const all = await rows();
    const of = (name: string) => all.find((x: any) => x.name === name);
    await expect(call(answer, hostOf(rig), { target: 'helper', prompt: of('helper').id, choice: 1, caller: BOSS_SECRET })).rejects.toMatchObject({ code: 'not_permitted', fix: expect.stringContaining('answer = "helpers"') });
    await expect(call(answer, helpersMayAnswer(rig), { target: 'other', prompt: of('other').id, choice: 1, caller: BOSS_SECRET })).rejects.toMatchObject({ code: 'not_permitted' });
    expect(rig.tmux.sent('send-keys')).toEqual([]);
    expect(await call(answer, helpersMayAnswer(rig), { target: 'helper', prompt: of('helper').id, choice: 1, caller: BOSS_SECRET })).toMatchObject({ keys: ['Enter'] });
  });
});

describe('queued messages in the inbox', () => {
  it('listed, edited and cancelled before they are typed in; a snoozed row is left out', async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api', screen: WORKING }));
    await rig.wait(300);
    const a = await call(send, hostOf(rig), { target: 'api', message: 'first' });
    const b = await call(send, hostOf(rig), { target: 'api', message: 'second' });
    expect((await call(inbox, hostOf(rig), {})).rows.map((r: any) => [r.kind, r.id, r.summary])).toEqual([['queued', a.id, 'first'], ['queued', b.id, 'second']]);
    expect(await call(edit, hostOf(rig), { id: a.id, message: 'first, edited' })).toMatchObject({ id: a.id, position: 1 });
    expect(await call(cancel, hostOf(rig), { id: b.id })).toMatchObject({ id: b.id, cancelled: true });
    await expect(call(cancel, hostOf(rig), { id: b.id })).rejects.toMatchObject({ code: 'not_queued', message: expect.stringContaining('cancelled') });
    await expect(call(cancel, hostOf(rig), { id: 'nope' })).rejects.toMatchObject({ code: 'unknown_row' });
    expect(rig.sup.messages.receipt(b.id)?.receipt.closed).toMatch(/cancelled/);
    const host = hostOf(rig);
    expect((await call(inbox, host, {})).rows.map((r: any) => r.summary)).toEqual(['first, edited']);
    await call(snooze, host, { id: a.id, forMs: 60_000 });
    expect((await call(inbox, host, {})).rows).toEqual([]);
  });

  it('an agent window may not snooze: the inbox is the user\'s', async () => {
    rig = await startRig(family);
    await rig.wait(300);
    await expect(call(snooze, hostOf(rig), { id: 'p1', forMs: 60_000, caller: BOSS_SECRET })).rejects.toMatchObject({ code: 'not_permitted', message: expect.stringContaining('only people snooze') });
    expect(await call(snooze, hostOf(rig), { id: 'p1', forMs: 60_000 })).toMatchObject({ id: 'p1' });
  });

  it("an agent window cancels only the messages of windows it may send to", async () => {
    rig = await startRig(family);
    await rig.wait(300);
    const m = await call(send, hostOf(rig), { target: 'other', message: 'x' });
    await expect(call(cancel, hostOf(rig), { id: m.id, caller: BOSS_SECRET })).rejects.toMatchObject({ code: 'unknown_row' });
    const h = await call(send, hostOf(rig), { target: 'helper', message: 'y' });
    expect(await call(cancel, hostOf(rig), { id: h.id, caller: BOSS_SECRET })).toMatchObject({ cancelled: true });
  });
});
