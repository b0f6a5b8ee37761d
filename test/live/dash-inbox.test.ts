// Live: `nerdr dash` opens on the inbox. nerdr's demo agent shows its real permission dialog;
// the dashboard lists it with a message queued behind it, `x` then `y` cancels the message (it
// is never typed in), `1` answers the dialog with the agent's own keys and the agent goes on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboxRow } from '../../src/protocol/index.js';
import { startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';
import { dashRunner } from './helpers/dash.js';

describe.skipIf(!tmuxAvailable)('nerdr dash: the inbox (live)', () => {
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

  it('lists the prompt and the queued message; x cancels the message, 1 answers the prompt and the agent goes on', async () => {
    const made = await env.nerdr('new', 'demo', '-d', '--name', 'x', '--', '--auto', '0', '--work', '1', '--ask');
    expect(made.code, made.stderr).toBe(0);
    const agent = made.stdout.trim();
    await waitFor(async () => (await env.lsJson()).some((r) => r.name === 'x' && r.state === 'idle'), { what: 'x to be idle' });
    await env.tmuxOk('send-keys', '-t', agent, 'build it', 'Enter');
    const prompt = await waitFor(async () => (await rows()).find((r) => r.name === 'x' && r.kind === 'blocked') ?? null, { what: "x's prompt in the inbox", timeoutMs: 20_000 });
    // x waits for an answer: a message sent now waits in its queue
    const sent = await env.nerdr('send', 'x', 'never typed', '--json');
    expect(sent.code, sent.stderr).toBe(0);
    const message = (JSON.parse(sent.stdout) as { id: string }).id;

    const win = (await env.tmuxOk('new-window', '-d', '-P', '-F', '#{window_id}', '-n', 'dash', process.execPath, '--input-type=module', '-e', dashRunner(env.server))).trim();
    const capture = async (): Promise<string> => env.tmuxOk('capture-pane', '-p', '-t', win);
    // a not-yet throws with the screen, which the timeout's message shows
    const shows = (test: (s: string) => boolean, what: string) =>
      waitFor(
        async () => {
          const s = await capture();
          if (test(s)) return s;
          throw new Error(`screen:\n${s.replace(/\n+$/, '')}`);
        },
        { what, timeoutMs: 20_000 },
      );
    const label = async () => /┌─ (\S+ · \S+) /.exec(await capture())?.[1] ?? '';

    // the inbox first: both rows, the selected prompt in full with its numbered options
    const first = await shows((s) => /blocked\s+\S+\s+x\s+Do you want to proceed\?/.test(s) && /queued\s+\S+\s+x\s+#1 never typed/.test(s), 'the inbox with the prompt and the queued message');
    expect(first).toContain('rm -rf build/ && npm run build');
    expect(first).toMatch(/❯ 1\. Yes/);
    expect(first).toContain(`inbox 2`);

    // the queued message: selected with j, x asks, y cancels
    await env.tmuxOk('send-keys', '-t', win, 'j');
    await waitFor(async () => (await label()) === 'x · queued', { what: 'the queued message selected' });
    await env.tmuxOk('send-keys', '-t', win, 'x');
    await shows((s) => s.includes('cancel the message queued for x?'), 'the question before cancelling');
    await env.tmuxOk('send-keys', '-t', win, 'y');
    await shows((s) => s.includes('message for x cancelled') && !s.includes('never typed'), 'the message cancelled and gone from the inbox');
    expect((await env.nerdr('send', '--status', message)).stdout).toContain('cancelled');

    // the prompt: 1 answers with option 1 ("Yes"), typed with the agent's own keys
    await waitFor(async () => (await label()) === 'x · blocked', { what: "x's prompt selected" });
    expect((await rows()).find((r) => r.kind === 'blocked')?.id).toBe(prompt.id);
    await env.tmuxOk('send-keys', '-t', win, '1');
    await waitFor(async () => (await env.tmuxOk('capture-pane', '-p', '-t', agent)).includes('Bash(rm -rf build/ && npm run build) … ok'), { what: 'x to run the approved command' });
    await shows((s) => s.includes('answered x: 1. Yes'), 'the answer in the status line');
    await shows((s) => !/blocked\s+\S+\s+x\s+Do you want/.test(s), 'the prompt gone from the inbox');
    // the turn ends; the cancelled message was never typed in
    await waitFor(async () => (await env.lsJson()).some((r) => r.name === 'x' && (r.state === 'done' || r.state === 'idle')), { what: "x's turn to end", timeoutMs: 20_000 });
    expect(await env.tmuxOk('capture-pane', '-p', '-t', agent)).not.toContain('never typed');

    // Tab: the agent list, as before
    await env.tmuxOk('send-keys', '-t', win, 'Tab');
    await shows((s) => /[●○◌◐✕⏸] x\s+demo\s+/.test(s), 'the agent list after Tab');
    // n: a new agent with its first message, from the dashboard
    await env.tmuxOk('send-keys', '-t', win, 'n');
    const steps: [string, string][] = [['which agent?', 'demo'], [' its name ', 'made'], [' its worktree branch ', ''], [' its first message ', 'hello from the dash']];
    for (const [question, answer] of steps) {
      await shows((s) => s.includes(question), `the question "${question.trim()}"`);
      if (answer) await env.tmuxOk('send-keys', '-t', win, '-l', answer);
      await env.tmuxOk('send-keys', '-t', win, 'Enter');
    }
    await shows((s) => s.includes('started made in @'), 'the new agent started');
    const fresh = await waitFor(async () => (await env.lsJson()).find((r) => r.name === 'made') ?? null, { what: 'made in nerdr ls' });
    await waitFor(async () => (await env.tmuxOk('capture-pane', '-p', '-t', fresh.window)).includes('> hello from the dash'), { what: 'its first message typed in', timeoutMs: 20_000 });
    await env.tmuxOk('send-keys', '-t', win, 'q');
    await waitFor(async () => !(await env.tmuxOk('list-windows', '-a', '-F', '#{window_id}')).split('\n').includes(win), { what: 'the dashboard window to close after q' });
  });
});
