// The inbox through the real CLI on a real tmux server: nerdr's demo agent shows a real
// permission dialog (src/demo/agent.ts); `nerdr inbox` lists it, `nerdr answer` types its keys
// only while the prompt is the one listed, and queued messages are cancelled and edited there.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboxRow } from '../../src/protocol/index.js';
import { paneEnv, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';

describe.skipIf(!tmuxAvailable)('the inbox', () => {
  let env: LiveEnv;
  beforeAll(async () => {
    env = await startLiveEnv({ cols: 140, rows: 40 });
  });
  afterAll(async () => {
    await env?.cleanup();
  });

  const rows = async (): Promise<InboxRow[]> => {
    const r = await env.nerdr('inbox', '--json');
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { rows: InboxRow[] }).rows;
  };
  const screen = (win: string) => env.tmuxOk('capture-pane', '-p', '-t', win);
  /** A demo agent that asks before each turn's command, given a turn: its window once it is blocked. */
  async function asking(name: string): Promise<{ win: string; row: InboxRow }> {
    const r = await env.nerdr('new', 'demo', '-d', '--name', name, '--', '--auto', '0', '--work', '1', '--ask');
    expect(r.code, r.stderr).toBe(0);
    const win = r.stdout.trim();
    await waitFor(async () => (await env.lsJson()).some((x) => x.name === name && x.state === 'idle'), { what: `${name} to be idle` });
    await env.tmuxOk('send-keys', '-t', win, 'build it', 'Enter');
    const row = await waitFor(async () => (await rows()).find((x) => x.name === name && x.kind === 'blocked') ?? null, { what: `${name}'s prompt in the inbox`, timeoutMs: 20_000 });
    return { win, row };
  }

  it('lists the dialog as the screen shows it; answers it with its keys; refuses a prompt that changed (exit 7) and types nothing', async () => {
    const { win, row } = await asking('asker');
    expect(row.dialog).toMatchObject({ text: 'Bash command\nrm -rf build/ && npm run build\nDo you want to proceed?', selected: 0 });
    expect(row.dialog!.options.map((o) => [o.n, o.kind])).toEqual([[1, 'approve'], [2, 'deny']]);
    expect(row.answerable).toBe(true);
    const text = await env.nerdr('inbox');
    expect(text.stdout).toContain(`${row.id}`);
    expect(text.stdout).toContain('blocked: Do you want to proceed?');
    const detail = await env.nerdr('inbox', row.id);
    expect(detail.stdout).toContain(`nerdr answer ${win} approve|deny|N --prompt ${row.id}`);

    const stale = await env.nerdr('answer', 'asker', 'approve', '--prompt', 'p123456789');
    expect(stale.code).toBe(7);
    expect(stale.stderr).toContain('the prompt changed');
    expect(stale.stderr).toContain(row.id);
    expect(await screen(win)).toContain('Do you want to proceed?');

    const ok = await env.nerdr('answer', 'asker', 'approve', '--prompt', row.id);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('1. Yes');
    await waitFor(async () => (await screen(win)).includes('Bash(rm -rf build/ && npm run build) … ok'), { what: 'the approved command to run' });
    // the same id again: that dialog is gone
    const again = await env.nerdr('answer', 'asker', 'approve', '--prompt', row.id);
    expect(again.code).toBe(7);
    expect(again.stderr).toContain('the prompt changed');
  });

  it('deny moves the selection to "No" and the agent is told no; the screen moving on first makes the old id stale', async () => {
    const { win, row } = await asking('denied');
    // a person answers in the window first: the listed prompt is gone
    await env.tmuxOk('send-keys', '-t', win, 'Escape');
    await waitFor(async () => (await screen(win)).includes('Permission denied'), { what: 'the dialog to close' });
    await env.tmuxOk('send-keys', '-t', win, 'again', 'Enter');
    const next = await waitFor(async () => (await rows()).find((x) => x.name === 'denied' && x.kind === 'blocked' && x.id !== row.id) ?? null, { what: 'the next prompt', timeoutMs: 20_000 });
    const stale = await env.nerdr('answer', win, 'deny', '--prompt', row.id);
    expect(stale.code).toBe(7);
    expect(stale.stderr).toContain(next.id);
    const r = await env.nerdr('answer', win, 'deny', '--prompt', next.id, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ option: { n: 2, kind: 'deny' }, keys: ['Down', 'Enter'] });
    await waitFor(async () => (await screen(win)).split('Permission denied').length === 3, { what: 'the agent to be told no' });
  });

  it("an agent window may not answer; with [agents] answer = \"helpers\" only its own helpers' prompts", async () => {
    const { win, row } = await asking('guarded');
    const boss = await env.nerdr('new', '-d', '--name', 'boss', '--cmd', 'exec sleep 300');
    const secret = (await paneEnv(env, boss.stdout.trim())).NERDR_TAB!;
    expect(secret).toBeTruthy();
    const refused = await env.nerdrWith(['answer', 'guarded', 'approve', '--prompt', row.id], { env: { NERDR_TAB: secret } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('only people answer dialogs');
    expect(refused.stderr).toContain('answer = "helpers"');
    expect(await screen(win)).toContain('Do you want to proceed?');

    // allowed: a helper boss starts; still refused: a window boss did not start
    writeFileSync(path.join(env.configDir, 'config.toml'), '[agents]\nanswer = "helpers"\n');
    const made = await env.nerdrWith(['new', 'demo', '-d', '--name', 'helper', '--', '--auto', '0', '--work', '1', '--ask'], { env: { NERDR_TAB: secret } });
    expect(made.code, made.stderr).toBe(0);
    const hwin = made.stdout.trim();
    await waitFor(async () => (await env.lsJson()).some((x) => x.name === 'helper' && x.state === 'idle'), { what: 'helper to be idle' });
    await env.tmuxOk('send-keys', '-t', hwin, 'build it', 'Enter');
    const hrow = await waitFor(async () => (await rows()).find((x) => x.name === 'helper' && x.kind === 'blocked') ?? null, { what: "helper's prompt", timeoutMs: 20_000 });
    const other = await env.nerdrWith(['answer', 'guarded', 'approve', '--prompt', row.id], { env: { NERDR_TAB: secret } });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('only the dialogs of windows it started');
    const mine = await env.nerdrWith(['answer', 'helper', 'approve', '--prompt', hrow.id], { env: { NERDR_TAB: secret } });
    expect(mine.code, mine.stderr).toBe(0);
    await waitFor(async () => (await screen(hwin)).includes('… ok'), { what: "the helper's approved command to run" });
    writeFileSync(path.join(env.configDir, 'config.toml'), '');
  });

  it('queued messages: listed, edited, cancelled (never typed), snoozed out of the list; --same answers every identical prompt', async () => {
    const a = await asking('same-a');
    const b = await asking('same-b');
    const q1 = JSON.parse((await env.nerdr('send', 'same-a', 'first note', '--json')).stdout) as { id: string };
    const q2 = JSON.parse((await env.nerdr('send', 'same-a', 'second note', '--json')).stdout) as { id: string };
    let list = await rows();
    expect(list.filter((r) => r.kind === 'queued' && r.name === 'same-a').map((r) => r.summary)).toEqual(['first note', 'second note']);
    expect((await env.nerdr('send', '--edit', q1.id, 'first note, edited')).code).toBe(0);
    const c = await env.nerdr('send', '--cancel', q2.id);
    expect(c.code, c.stderr).toBe(0);
    expect((await env.nerdr('send', '--status', q2.id)).stdout).toContain('cancelled');
    const snoozed = await env.nerdr('inbox', 'snooze', q1.id, '15m');
    expect(snoozed.code, snoozed.stderr).toBe(0);
    list = await rows();
    expect(list.some((r) => r.id === q1.id || r.id === q2.id)).toBe(false);
    expect((await env.nerdr('inbox', 'snooze', q1.id, '0')).code).toBe(0);
    expect((await rows()).find((r) => r.id === q1.id)?.summary).toBe('first note, edited');

    const same = await env.nerdr('answer', '--same', a.row.id, 'approve', '--json');
    expect(same.code, same.stderr).toBe(0);
    const got = JSON.parse(same.stdout) as { answered: number; results: { window: string }[] };
    expect(got.results.map((r) => r.window)).toEqual(expect.arrayContaining([a.win, b.win]));
    for (const w of [a.win, b.win]) await waitFor(async () => (await screen(w)).includes('… ok'), { what: `${w} to run the approved command` });
    // the edited message is typed in once same-a is idle again; the cancelled one never
    await waitFor(async () => (await screen(a.win)).includes('first note, edited'), { what: 'the edited message to be typed in', timeoutMs: 20_000 });
    expect(await screen(a.win)).not.toContain('second note');
    // two agents and fifteen commands: 17 s on an idle machine, past vitest's 30 s once in CI at
    // load 9 (no wait in it had run out)
  }, 90_000);
});
