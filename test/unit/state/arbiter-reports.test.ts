import { describe, expect, it } from 'vitest';
import { SeqBook, classifySource, parseSeq, U64_MAX } from '../../../src/state/index.js';
import { DIALOG, IDLE_PROMPT, WORKING, rig } from './helpers.js';

describe('u64 seq', () => {
  it('parses exactly and compares as BigInt', () => {
    expect(parseSeq('18446744073709551615')).toBe(U64_MAX);
    expect(parseSeq('18446744073709551616')).toBeUndefined();
    expect(parseSeq(-1)).toBeUndefined();
    expect(parseSeq(1.5)).toBeUndefined();
    expect(parseSeq(2 ** 60)).toBeUndefined(); // already lost precision as a JS number
    expect(parseSeq(12n)).toBe(12n);
  });

  it('18446744073709551615 then …614 is stale; the reverse order is fresh', () => {
    const b = new SeqBook();
    expect(b.accept('s', parseSeq('18446744073709551615'))).toBe(true);
    expect(b.accept('s', parseSeq('18446744073709551614'))).toBe(false);
    const c = new SeqBook();
    expect(c.accept('s', parseSeq('18446744073709551614'))).toBe(true);
    expect(c.accept('s', parseSeq('18446744073709551615'))).toBe(true);
    // two time_ns values 1 ns apart that are equal as JS numbers
    const d = new SeqBook();
    expect(Number('1764489600000000001') === Number('1764489600000000002')).toBe(true);
    expect(d.accept('s', parseSeq('1764489600000000001'))).toBe(true);
    expect(d.accept('s', parseSeq('1764489600000000002'))).toBe(true);
    expect(d.accept('s', parseSeq('1764489600000000002'))).toBe(false);
  });

  it('unsequenced reports are accepted only until the source sends a sequenced one', () => {
    const b = new SeqBook();
    expect(b.accept('s', undefined)).toBe(true);
    expect(b.accept('s', undefined)).toBe(true);
    expect(b.accept('s', 5n)).toBe(true);
    expect(b.accept('s', undefined)).toBe(false);
    expect(b.accept('other', undefined)).toBe(true);
  });
});

describe('source classes', () => {
  it('classifies (source, agent) pairs like herdr', () => {
    expect(classifySource('herdr:opencode', 'opencode')).toBe('full-lifecycle');
    expect(classifySource('herdr:claude', 'claude-code')).toBe('reserved');
    expect(classifySource('herdr:antigravity_cli', 'agy')).toBe('session-only');
    expect(classifySource('herdr:gemini', 'gemini')).toBe('custom');
    expect(classifySource('herdr:claude', 'codex')).toBe('custom');
  });
});

describe('herdr reports in the arbiter', () => {
  it('a custom report overrides the screen until released; seq is per source', () => {
    const r = rig({ agent: 'gemini' });
    r.start(false);
    r.screen(IDLE_PROMPT, 'p');
    let u = r.arb.report({ source: 'custom:me', agent: 'gemini', state: 'working', seq: '18446744073709551614' });
    expect(u.accepted).toBe(true);
    expect(u.view.state).toBe('working');
    expect(u.view.authority).toBe('report');
    u = r.arb.report({ source: 'custom:me', agent: 'gemini', state: 'idle', seq: '18446744073709551614' });
    expect(u.accepted).toBe(false); // not strictly greater
    expect(u.view.state).toBe('working');
    u = r.arb.report({ source: 'custom:me', agent: 'gemini', state: 'blocked', seq: 18446744073709551615n });
    expect(u.accepted).toBe(true);
    expect(u.view.state).toBe('blocked');
    r.wait(3_600_000); // no timeout
    expect(r.arb.view().state).toBe('blocked');
    u = r.arb.release({ source: 'custom:me', agent: 'gemini', seq: '18446744073709551615' });
    expect(u.accepted).toBe(false); // stale seq: release ignored too
    u = r.arb.release({ source: 'custom:other', agent: 'gemini' });
    expect(u.accepted).toBe(false); // not the authority's source
    const r2 = rig({ agent: 'gemini' });
    r2.start(false);
    r2.screen(IDLE_PROMPT, 'p');
    r2.arb.report({ source: 'custom:me', agent: 'gemini', state: 'working', seq: 1 });
    u = r2.arb.release({ source: 'custom:me', agent: 'gemini', seq: 2 });
    expect(u.accepted).toBe(true);
    expect(u.view.authority).toBe('screen');
  });

  it('a visible dialog observed after the report wins over a non-blocked report', () => {
    const r = rig({ agent: 'gemini' });
    r.start(false);
    r.arb.report({ source: 'custom:me', agent: 'gemini', state: 'working' });
    r.screen(DIALOG, 'dlg');
    expect(r.arb.view().state).toBe('blocked');
    expect(r.arb.view().authority).toBe('screen');
  });

  it('reported state lasts until the agent restarts; reports naming another agent are ignored', () => {
    const r = rig({ agent: 'gemini' });
    r.start(false);
    expect(r.arb.report({ source: 'custom:me', agent: 'claude', state: 'working' }).accepted).toBe(false);
    r.arb.report({ source: 'custom:me', agent: 'gemini', state: 'working' });
    expect(r.arb.processExit().view.state).toBe('exited');
    expect(r.arb.report({ source: 'custom:me', agent: 'gemini', state: 'working' }).accepted).toBe(false);
    r.arb.processStart({ grace: false });
    r.screen(IDLE_PROMPT, 'p');
    expect(r.arb.view().state).toBe('idle');
  });

  it('reserved sources only set the conversation; their state is ignored', () => {
    const r = rig({ agent: 'claude' });
    r.start(false);
    r.screen(IDLE_PROMPT, 'p');
    const u = r.arb.report({ source: 'herdr:claude', agent: 'claude', state: 'working', agentSessionId: 'abc' });
    expect(u.accepted).toBe(true);
    expect(u.view.state).toBe('idle');
    expect(u.view.conversationId).toBe('abc');
    expect(u.view.conversationFrom).toBe('report');
  });

  it('full-lifecycle sources are the state; the screen (even a dialog) is not consulted', () => {
    const r = rig({ agent: 'opencode', hasIdleRules: false });
    r.start(false);
    r.screen(WORKING, 'w');
    r.arb.report({ source: 'herdr:opencode', agent: 'opencode', state: 'idle', seq: 1 });
    r.screen(DIALOG, 'd');
    expect(r.arb.view().state).toBe('done');
    expect(r.arb.view().authority).toBe('lifecycle');
    expect(r.arb.processExit().view.state).toBe('exited');
  });

  it('report_agent_session: replacement of a stored id follows the start source rules', () => {
    const r = rig({ agent: 'claude' });
    r.start(false);
    expect(r.arb.reportSession({ source: 'herdr:claude', agent: 'claude', seq: 1, agentSessionId: 'one', sessionStartSource: 'startup' }).accepted).toBe(true);
    expect(r.arb.reportSession({ source: 'herdr:claude', agent: 'claude', seq: 2, agentSessionId: 'two', sessionStartSource: 'startup' }).accepted).toBe(false);
    expect(r.arb.reportSession({ source: 'herdr:claude', agent: 'claude', seq: 3, agentSessionId: 'two', sessionStartSource: 'clear' }).view.conversationId).toBe('two');
    expect(r.arb.reportSession({ source: 'herdr:claude', agent: 'claude', seq: 4, agentSessionId: '-rf' }).accepted).toBe(false);
    expect(r.arb.reportSession({ source: 'custom:x', agent: 'claude', agentSessionId: 'zzz' }).accepted).toBe(false);
  });

  it('release from an official source is a no-op', () => {
    const r = rig({ agent: 'opencode' });
    r.start(false);
    r.arb.report({ source: 'herdr:opencode', agent: 'opencode', state: 'working' });
    expect(r.arb.release({ source: 'herdr:opencode', agent: 'opencode' }).view.state).toBe('working');
  });
});
