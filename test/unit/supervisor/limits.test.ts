// A window at its usage limit, on the fake control channel and the fake clock: limited with the
// reset, nothing typed into it meanwhile; once the reset passes, `[agents] on_limit = "resume"`
// types its message first (then what was queued), "wait" types nothing of its own.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRig, settle, type Rig } from './harness.js';

const RULE = '─'.repeat(80);
const IDLE = ['Claude Code', '', RULE, '❯', RULE, '  ? for shortcuts'];
const SESSION = '6f1c2a7e-0000-4000-8000-000000000001';
/** Thu Dec 3 2026, 19:12 UTC: Claude's "resets 7:22pm (UTC)" (its words in the capture below) is 10 minutes away. */
const T0 = Date.UTC(2026, 11, 3, 19, 12);
const RESET = Date.UTC(2026, 11, 3, 19, 22);
const WORDS = "You've hit your session limit · resets 7:22pm (UTC)";

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.done();
  rig = null;
});

async function limited(onLimit: 'wait' | 'resume'): Promise<Rig> {
  const r = await startRig((t) => void t.addPane({ agent: 'claude', screen: IDLE }), { onLimit: () => ({ onLimit, message: 'continue' }) });
  r.time.t = T0;
  await r.wait(300);
  const a = r.sup.agents.get('%1')!;
  r.sup.onHook(a, 'claude', { hook_event_name: 'UserPromptSubmit', session_id: SESSION, prompt: 'go' });
  await settle();
  expect(a.state).toBe('working');
  r.sup.messages.enqueue(a, 'the next task');
  r.sup.onHook(a, 'claude', {
    hook_event_name: 'StopFailure',
    session_id: SESSION,
    error: 'rate_limit',
    last_assistant_message: WORDS,
  });
  await r.wait(300);
  return r;
}

/** Claude Code 2.1.197's own dialog about the limit, opened by itself after it (a real capture). */
const OPTIONS = readFileSync(path.join(import.meta.dirname, '../../fixtures/screens/claude/captured-limited-options.txt'), 'utf8').trimEnd().split('\n');
const DIALOG = readFileSync(path.join(import.meta.dirname, '../../agents/screens/claude/permission.txt'), 'utf8').split('\n').slice(0, 48);
const show = (r: Rig, rows: string[]): void => r.channel().output('%1', '\x1b[2J\x1b[H' + rows.join('\r\n'));
const typed = (r: Rig): string[] => r.tmux.sent('set-buffer').map((w) => w.at(-1)!);

describe('a window at its usage limit', () => {
  it('is limited until the reset, its light says so, nothing is typed into it', async () => {
    rig = await limited('wait');
    const a = rig.sup.agents.get('%1')!;
    expect(a.state).toBe('limited');
    expect(a.arbiter.view().limit).toMatchObject({ resetAt: RESET, from: 'hook', words: WORDS });
    expect(rig.tmux.pane('%1').options.get('@nerdr_state')).toBe('limited');
    expect(rig.tmux.pane('%1').options.get('@nerdr_light')).toContain('◷');
    expect(JSON.parse(rig.tmux.pane('%1').options.get('@nerdr_facts')!).limit).toMatchObject({ resetAt: RESET });
    rig.time.advance(RESET - rig.time.t - 1000);
    await rig.wait(500);
    expect(a.state).toBe('limited');
    expect(typed(rig)).toEqual([]);
  });

  it('on_limit = "wait": idle after the reset, what was queued is typed, nothing else', async () => {
    rig = await limited('wait');
    const a = rig.sup.agents.get('%1')!;
    rig.time.advance(RESET - rig.time.t);
    await rig.wait(300);
    expect(a.state).toBe('idle');
    expect(typed(rig)).toEqual(['the next task']);
    expect(rig.logs.some((l) => /its usage limit reset/.test(l))).toBe(true);
  });

  it('on_limit = "resume": its message is typed first once the reset passed, then the queue after it', async () => {
    rig = await limited('resume');
    const a = rig.sup.agents.get('%1')!;
    rig.time.advance(RESET - rig.time.t - 1);
    await rig.wait(0);
    expect(typed(rig)).toEqual([]);
    await rig.wait(300);
    expect(typed(rig)).toEqual(['continue']);
    expect(rig.sup.messages.queue(a).messages.map((m) => m.text)).toEqual(['continue', 'the next task']);
    // Enter, the turn it started, the turn's end: the next message
    await rig.wait(500);
    rig.sup.onHook(a, 'claude', { hook_event_name: 'UserPromptSubmit', session_id: SESSION, prompt: 'continue' });
    await rig.wait(100);
    rig.sup.onHook(a, 'claude', { hook_event_name: 'Stop', session_id: SESSION });
    await rig.wait(300);
    expect(typed(rig)).toEqual(['continue', 'the next task']);
  });

  it('never typed into a dialog: a dialog on screen at the reset holds the message until it closes', async () => {
    rig = await limited('resume');
    const a = rig.sup.agents.get('%1')!;
    show(rig, DIALOG);
    await rig.wait(300);
    expect(a.state).toBe('blocked');
    rig.time.advance(RESET - rig.time.t);
    await rig.wait(300);
    expect(rig.sup.messages.queue(a).messages.map((m) => m.text)).toEqual(['continue', 'the next task']);
    expect(typed(rig)).toEqual([]);
    show(rig, IDLE);
    await rig.wait(3000);
    expect(typed(rig)).toEqual(['continue']);
  });

  it("Claude's own dialog about the limit: limited until the reset; resume closes it (Esc), then types; no blocked, no done on the way", async () => {
    rig = await limited('resume');
    const a = rig.sup.agents.get('%1')!;
    show(rig, OPTIONS);
    await rig.wait(300);
    expect(a.state).toBe('limited');
    const states: string[] = [];
    rig.sup.on('change', (x) => x === a && states.push(x.state));
    rig.time.advance(RESET - rig.time.t);
    await rig.wait(50);
    expect(rig.tmux.sent('send-keys')).toEqual([['send-keys', '-t', '%1', 'Escape']]);
    expect(a.state).toBe('limited');
    expect(typed(rig)).toEqual([]);
    // the agent closes it
    show(rig, IDLE);
    await rig.wait(1000);
    expect(typed(rig)).toEqual(['continue']);
    expect(states).not.toContain('blocked');
    expect(states).not.toContain('done');
  });

  it('"wait" leaves the dialog to the user: limited while it stays open, nothing sent', async () => {
    rig = await limited('wait');
    const a = rig.sup.agents.get('%1')!;
    show(rig, OPTIONS);
    await rig.wait(300);
    rig.time.advance(RESET - rig.time.t);
    await rig.wait(300);
    expect(a.state).toBe('limited');
    expect(rig.tmux.sent('send-keys')).toEqual([]);
    show(rig, IDLE);
    await rig.wait(1000);
    expect(a.state).toBe('idle');
    expect(typed(rig)).toEqual(['the next task']);
  });
});
