// The agent's status file (Claude Code's ~/.claude/sessions/<pid>.json) as a source beside the
// hooks and the screen. The sequences follow a recorded selftest run on Claude Code 2.1.332
// (test/fixtures/claude-sessions/2.1.332-selftest.jsonl).
import { describe, expect, it } from 'vitest';
import { INTERRUPTED_IDLE_MS, STATUS_IDLE_HOLD_MS, STATUS_LATE_END_MS, type AgentStatus } from '../../../src/state/index.js';
import { IDLE_PROMPT, WORKING, rig } from './helpers.js';

function withStatus() {
  const r = rig();
  let t = 1;
  const status = (status: AgentStatus['status'], waitingFor?: string) => {
    const u = r.arb.agentStatus({ status, waitingFor, updatedAt: t++, file: '/home/u/.claude/sessions/42.json' });
    r.record(u.view.state);
    return u.view;
  };
  return { ...r, status };
}

describe('the status file, with hooks', () => {
  it('Esc: idle with no Stop hook ends the turn idle after the hold, sooner than the screen would', () => {
    const r = withStatus();
    r.start(false);
    r.hook('session-start');
    r.status('idle');
    r.hook('prompt-submit');
    r.status('busy');
    r.screen(WORKING, 'w');
    expect(r.arb.view().state).toBe('working');
    r.status('idle');
    r.screen(IDLE_PROMPT, 'stopped');
    const pending = r.arb.view().pending.map((p) => p.name);
    expect(pending).toContain('status-idle');
    r.wait(STATUS_IDLE_HOLD_MS - 10);
    expect(r.arb.view().state).toBe('working');
    r.wait(20);
    const v = r.arb.view();
    expect(v.state).toBe('idle'); // a stop is not a completion
    expect(v.authority).toBe('status');
    expect(v.reason).toMatch(/status file: idle .* no turn end: the turn was stopped/);
    expect(STATUS_IDLE_HOLD_MS).toBeLessThan(INTERRUPTED_IDLE_MS);
    expect(r.states).toEqual(['unknown', 'working', 'idle']);
  });

  it('a normal turn: the Stop hook decides, the idle that follows it changes nothing', () => {
    const r = withStatus();
    r.start(false);
    r.hook('session-start');
    r.hook('prompt-submit');
    r.status('busy');
    r.hook('turn-end', { backgroundTasks: 0 });
    expect(r.arb.view().state).toBe('done');
    r.status('idle');
    r.wait(STATUS_IDLE_HOLD_MS * 2);
    expect(r.arb.view().state).toBe('done');
    expect(r.arb.view().authority).toBe('hook');
  });

  it('a Stop hook that comes after the hold turns the stop back into a completion (done)', () => {
    const r = withStatus();
    r.start(false);
    r.hook('session-start');
    r.hook('prompt-submit');
    r.status('busy');
    r.status('idle');
    r.wait(STATUS_IDLE_HOLD_MS + 100);
    expect(r.arb.view().state).toBe('idle');
    r.hook('turn-end', { backgroundTasks: 0 });
    expect(r.arb.view().state).toBe('done');
  });

  it('a Stop hook long after a status stop is an ordinary turn end of a stopped turn', () => {
    const r = withStatus();
    r.start(false);
    r.hook('session-start');
    r.hook('prompt-submit');
    r.status('busy');
    r.status('idle');
    r.wait(STATUS_IDLE_HOLD_MS + STATUS_LATE_END_MS + 100);
    r.hook('turn-end', { backgroundTasks: 0 });
    expect(r.arb.view().state).toBe('idle');
  });

  it('a permission refused with Esc: waiting → idle, no hook after PermissionRequest → idle, not done', () => {
    const r = withStatus();
    r.start(false);
    r.hook('session-start');
    r.hook('prompt-submit');
    r.status('busy');
    r.hook('permission');
    r.status('waiting', 'permission prompt');
    expect(r.arb.view().state).toBe('blocked');
    r.status('idle');
    r.wait(STATUS_IDLE_HOLD_MS + 10);
    const v = r.arb.view();
    expect(v.state).toBe('idle');
    expect(v.reason).toMatch(/the dialog was refused/);
  });

  it('waiting opens the dialog at once; busy after it means it was answered', () => {
    const r = withStatus();
    r.start(false);
    r.hook('session-start');
    r.hook('prompt-submit');
    r.status('busy');
    expect(r.status('waiting', 'permission prompt').state).toBe('blocked');
    expect(r.arb.view().reason).toMatch(/waiting \(permission prompt\)/);
    expect(r.status('busy').state).toBe('working');
    r.hook('turn-end', { backgroundTasks: 0 });
    expect(r.arb.view().state).toBe('done');
  });

  it('an old idle does not end a turn a hook started later (a status file that stopped changing)', () => {
    const r = withStatus();
    r.start(false);
    r.hook('session-start');
    r.status('idle');
    r.clock.advance(5000);
    r.hook('prompt-submit');
    r.wait(STATUS_IDLE_HOLD_MS * 4);
    expect(r.arb.view().state).toBe('working');
    expect(r.arb.view().pending.map((p) => p.name)).not.toContain('status-idle');
  });

  it('the same write again is no news, a new write of the same status is; explain sees the file', () => {
    const r = withStatus();
    r.start(false);
    r.hook('session-start');
    const file = '/home/u/.claude/sessions/42.json';
    r.arb.agentStatus({ status: 'busy', updatedAt: 100, file });
    const at = r.arb.view().status!.at;
    expect(r.arb.view().status).toEqual({ status: 'busy', waitingFor: null, file, at });
    r.clock.advance(1000);
    r.arb.agentStatus({ status: 'busy', updatedAt: 100, file });
    expect(r.arb.view().status!.at).toBe(at);
    r.arb.agentStatus({ status: 'busy', updatedAt: 200, file });
    expect(r.arb.view().status!.at).toBe(at + 1000);
    expect(r.arb.agentStatus(null).view.status).toBeNull();
  });

  it('a new process forgets the last one\'s status', () => {
    const r = withStatus();
    r.start(false);
    r.status('busy');
    expect(r.arb.view().status).not.toBeNull();
    r.arb.processExit();
    expect(r.arb.view().status).toBeNull();
    r.start(false);
    expect(r.arb.view().status).toBeNull();
  });
});

describe('the status file, without hooks (hooks off, or a Claude nerdr did not wire)', () => {
  it('busy → working, waiting → blocked, busy → working, idle → done', () => {
    const r = withStatus();
    r.start(false);
    r.status('idle');
    expect(r.arb.view().state).toBe('unknown');
    expect(r.status('busy').state).toBe('working');
    expect(r.arb.view().authority).toBe('status');
    expect(r.status('waiting', 'permission prompt').state).toBe('blocked');
    expect(r.status('busy').state).toBe('working');
    expect(r.status('idle').state).toBe('done');
    expect(r.states).toEqual(['unknown', 'working', 'blocked', 'working', 'done']);
  });

  it('waiting → idle with no work between: the dialog was refused, idle', () => {
    const r = withStatus();
    r.start(false);
    r.status('busy');
    r.status('waiting', 'permission prompt');
    expect(r.status('idle').state).toBe('idle');
    expect(r.arb.view().reason).toMatch(/refused/);
  });

  it('a dialog on screen outranks the file', () => {
    const r = withStatus();
    r.start(false);
    r.status('busy');
    r.screen({ state: 'blocked', visibleBlocker: true }, 'dialog');
    expect(r.arb.view().state).toBe('blocked');
    expect(r.arb.view().authority).toBe('screen');
  });
});
