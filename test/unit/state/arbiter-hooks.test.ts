import { describe, expect, it } from 'vitest';
import { ANSWERED_MS, BACKGROUND_STALE_MS, INTERRUPTED_IDLE_MS } from '../../../src/state/index.js';
import { DIALOG, IDLE_PROMPT, WORKING, rig } from './helpers.js';

describe('hook rules', () => {
  it('prompt → working, permission → blocked at once, tool → working, turn end → done', () => {
    const r = rig();
    r.start(false);
    r.hook('prompt-submit');
    expect(r.arb.view().state).toBe('working');
    expect(r.arb.view().authority).toBe('hook');
    r.hook('permission');
    expect(r.arb.view().state).toBe('blocked');
    r.hook('tool');
    r.hook('turn-end', { backgroundTasks: 0 });
    expect(r.states).toEqual(['unknown', 'working', 'blocked', 'working', 'done']);
    expect(r.arb.seen().view.state).toBe('idle');
  });

  it('hooks work during the startup grace', () => {
    const r = rig();
    r.start();
    r.hook('prompt-submit');
    expect(r.arb.view().state).toBe('working');
  });

  it('a turn end while a subagent runs keeps working until the last SubagentStop', () => {
    const r = rig();
    r.start(false);
    r.hook('prompt-submit');
    r.hook('subagent-start', { subagentId: 'a' });
    r.hook('subagent-start', { subagentId: 'b' });
    let v = r.hook('turn-end', { backgroundTasks: 0 }).view;
    expect(v.state).toBe('working');
    expect(v.background).toBe(true);
    expect(v.subagents).toBe(2);
    r.hook('subagent-stop', { subagentId: 'a' });
    expect(r.arb.view().state).toBe('working');
    v = r.hook('subagent-stop', { subagentId: 'b' }).view;
    expect(v.state).toBe('done');
    expect(v.background).toBe(false);
  });

  it("Stop's background_tasks keep it working; the screen settles it when they are gone", () => {
    const r = rig();
    r.start(false);
    r.hook('prompt-submit');
    r.screen(WORKING, 'w');
    const v = r.hook('turn-end', { backgroundTasks: 2 }).view;
    expect(v.state).toBe('working');
    expect(v.backgroundTasks).toBe(2);
    r.screen(WORKING, 'shells'); // "· 2 shells" footer
    r.wait(60000);
    expect(r.arb.view().state).toBe('working');
    r.screen(IDLE_PROMPT, 'quiet');
    r.wait(2500);
    expect(r.arb.view().state).toBe('done');
    expect(r.arb.view().backgroundTasks).toBe(0);
  });

  it('a missed SubagentStop does not pin working for ever: idle screen for 20 s ends it', () => {
    const r = rig();
    r.start(false);
    r.hook('prompt-submit');
    r.hook('subagent-start', { subagentId: 'a' });
    r.hook('turn-end', { backgroundTasks: 0 });
    r.screen(IDLE_PROMPT, 'i');
    r.wait(BACKGROUND_STALE_MS - 1);
    expect(r.arb.view().state).toBe('working');
    r.wait(1);
    expect(r.arb.view().state).toBe('done');
  });

  it('a subagent’s own events are ignored except its permission requests', () => {
    const r = rig();
    r.start(false);
    r.hook('prompt-submit');
    r.hook('turn-end', { backgroundTasks: 0 });
    r.hook('tool', { subagent: true });
    expect(r.arb.view().state).toBe('done');
    r.hook('permission', { subagent: true });
    expect(r.arb.view().state).toBe('blocked');
  });

  it('Codex Interrupt → idle (not done: the user pressed Esc)', () => {
    const r = rig({ agent: 'codex' });
    r.start(false);
    r.hook('prompt-submit');
    expect(r.hook('interrupt').view.state).toBe('idle');
  });

  it('permission denied with Esc (no hook): dialog off screen for 2 s → answered, screen decides (idle)', () => {
    const r = rig();
    r.start(false);
    r.hook('prompt-submit');
    r.hook('permission');
    r.screen(DIALOG, 'dlg');
    r.wait(10000);
    expect(r.arb.view().state).toBe('blocked');
    r.screen(IDLE_PROMPT, 'back-to-prompt');
    r.wait(ANSWERED_MS - 1);
    expect(r.arb.view().state).toBe('blocked');
    r.wait(1);
    expect(r.arb.view().state).toBe('idle');
  });

  it('permission denied with Esc, the screen passing through a working frame (no hook): idle, not done', () => {
    const r = rig();
    r.start(false);
    r.hook('prompt-submit');
    r.hook('permission');
    r.screen(DIALOG, 'dlg');
    r.screen(WORKING, 'cancelling');
    r.wait(ANSWERED_MS);
    expect(r.arb.view().state).toBe('working');
    r.screen(IDLE_PROMPT, 'cancelled');
    r.wait(INTERRUPTED_IDLE_MS);
    expect(r.arb.view().state).toBe('idle');
  });

  it('approved dialog, then the turn-end hook: done', () => {
    const r = rig();
    r.start(false);
    r.hook('prompt-submit');
    r.hook('permission');
    r.screen(DIALOG, 'dlg');
    r.screen(WORKING, 'running');
    r.wait(ANSWERED_MS);
    r.hook('tool');
    r.screen(IDLE_PROMPT, 'finished');
    expect(r.hook('turn-end', { backgroundTasks: 0 }).view.state).toBe('done');
  });

  it('approved dialog with a slow PostToolUse: working per screen after 2 s', () => {
    const r = rig();
    r.start(false);
    r.hook('prompt-submit');
    r.hook('permission');
    r.screen(DIALOG, 'dlg');
    r.screen(WORKING, 'running');
    r.wait(ANSWERED_MS);
    expect(r.arb.view().state).toBe('working');
  });

  it('a visible dialog means blocked even when hooks say working', () => {
    const r = rig();
    r.start(false);
    r.hook('prompt-submit');
    r.screen(DIALOG, 'dlg');
    expect(r.arb.view().state).toBe('blocked');
    expect(r.arb.view().authority).toBe('screen');
  });

  it('interrupted turn (no hook): idle, unchanged screen for 3 s → idle', () => {
    const r = rig();
    r.start(false);
    r.hook('prompt-submit');
    r.screen(WORKING, 'spin');
    r.screen(IDLE_PROMPT, 'interrupted');
    r.wait(INTERRUPTED_IDLE_MS - 1);
    expect(r.arb.view().state).toBe('working');
    r.wait(1);
    expect(r.arb.view().state).toBe('idle');
  });

  it('the first idle after startup is idle; session starts after compaction are ignored by the mappers', () => {
    const r = rig();
    r.start(false);
    r.hook('session-start', { source: 'startup', conversationId: 'c1' });
    r.screen(IDLE_PROMPT, 'p');
    expect(r.arb.view().state).toBe('idle');
    expect(r.arb.view().conversationId).toBe('c1');
    expect(r.arb.view().conversationFrom).toBe('hook');
  });

  it('events of another conversation (child session, title turn) are treated as a subagent’s', () => {
    const r = rig({ agent: 'opencode' });
    r.start(false);
    r.hook('session-start', { conversationId: 'root' });
    r.hook('turn-start', { conversationId: 'root' });
    r.hook('turn-end', { conversationId: 'child' });
    expect(r.arb.view().state).toBe('working');
    r.hook('turn-end', { conversationId: 'root' });
    expect(r.arb.view().state).toBe('done');
  });
});
