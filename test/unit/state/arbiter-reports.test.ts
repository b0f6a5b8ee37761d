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

describe("herdr integrations' conversations", () => {
  it('opencode /new: the TUI select (no seq, after sequenced reports) switches the conversation; the old state goes, the new conversation\'s reports apply', () => {
    const r = rig({ agent: 'opencode' });
    r.start(false);
    r.screen(IDLE_PROMPT, 'p');
    r.arb.report({ source: 'herdr:opencode', agent: 'opencode', state: 'working', seq: 10, agentSessionId: 'ses_A' });
    r.arb.report({ source: 'herdr:opencode', agent: 'opencode', state: 'idle', seq: 11, agentSessionId: 'ses_A' });
    expect(r.arb.view()).toMatchObject({ state: 'done', conversationId: 'ses_A', authority: 'lifecycle' });
    const u = r.arb.reportSession({ source: 'herdr:opencode', agent: 'opencode', agentSessionId: 'ses_B', sessionStartSource: 'select' });
    expect(u.accepted).toBe(true);
    expect(u.view.conversationId).toBe('ses_B');
    // ses_A's idle is not ses_B's: the screen decides until ses_B reports
    expect(u.view.authority).toBe('screen');
    expect(r.arb.report({ source: 'herdr:opencode', agent: 'opencode', state: 'working', seq: 12, agentSessionId: 'ses_B' }).view).toMatchObject({ state: 'working', authority: 'lifecycle' });
    expect(r.arb.report({ source: 'herdr:opencode', agent: 'opencode', state: 'idle', seq: 13, agentSessionId: 'ses_A' }).accepted).toBe(false);
    expect(r.arb.view().state).toBe('working');
  });

  it('pi: the session file (agent_session_path) is the conversation, preferred over an id; reports naming it are the state', () => {
    const P = '/home/u/.pi/agent/sessions/p/2026-12-01_x.jsonl';
    const r = rig({ agent: 'pi' });
    r.start(false);
    expect(r.arb.reportSession({ source: 'herdr:pi', agent: 'pi', seq: 1, sessionStartSource: 'startup', agentSessionPath: P }).view.conversationId).toBe(P);
    expect(r.arb.report({ source: 'herdr:pi', agent: 'pi', state: 'working', seq: 2, agentSessionPath: P }).view).toMatchObject({ state: 'working', authority: 'lifecycle' });
    // another file while anchored: cross-talk, dropped
    expect(r.arb.report({ source: 'herdr:pi', agent: 'pi', state: 'idle', seq: 3, agentSessionPath: '/other.jsonl' }).accepted).toBe(false);
    // both: the path wins (herdr)
    const o = rig({ agent: 'omp' });
    o.start(false);
    expect(o.arb.reportSession({ source: 'herdr:omp', agent: 'omp', seq: 1, sessionStartSource: 'startup', agentSessionId: 'id-1', agentSessionPath: '/s/a.jsonl' }).view.conversationId).toBe('/s/a.jsonl');
    // a relative path is no reference; nor is a path for any other agent
    const p2 = rig({ agent: 'pi' });
    p2.start(false);
    expect(p2.arb.reportSession({ source: 'herdr:pi', agent: 'pi', seq: 1, agentSessionPath: 'rel/a.jsonl' }).accepted).toBe(false);
    const c = rig({ agent: 'claude' });
    c.start(false);
    expect(c.arb.reportSession({ source: 'herdr:claude', agent: 'claude', seq: 1, agentSessionPath: '/t.jsonl', sessionStartSource: 'startup' }).view.conversationId).toBeNull();
  });

  it('a session file outlives a supervisor restart (facts)', () => {
    const r = rig({ agent: 'pi' });
    r.start(false);
    r.arb.reportSession({ source: 'herdr:pi', agent: 'pi', seq: 1, agentSessionPath: '/s/' + 'x'.repeat(600) + '.jsonl' });
    const facts = r.arb.facts();
    const again = rig({ agent: 'pi' });
    again.start(false);
    expect(again.arb.restoreFacts(facts).view.conversationId).toBe(facts.conversation?.id);
  });

  it.each(['copilot', 'cursor', 'grok', 'droid', 'devin', 'qodercli', 'kimi'])('%s: an id that cannot be replaced is freed when a new process starts; the exited window keeps it', (agent) => {
    const r = rig({ agent });
    r.start(false);
    const source = `herdr:${agent}`;
    r.arb.reportSession({ source, agent, seq: 100, agentSessionId: 'old', ...(agent === 'kimi' ? { sessionStartSource: 'startup' } : {}) });
    expect(r.arb.reportSession({ source, agent, seq: 101, agentSessionId: 'other', ...(agent === 'kimi' ? { sessionStartSource: 'startup' } : {}) }).view.conversationId).toBe('old');
    expect(r.arb.processExit().view.conversationId).toBe('old'); // for nerdr restore
    r.start(true);
    // the new process's clock may be behind the old one's
    const u = r.arb.reportSession({ source, agent, seq: 5, agentSessionId: 'new', ...(agent === 'kimi' ? { sessionStartSource: 'startup' } : {}) });
    expect(u.accepted).toBe(true);
    expect(u.view).toMatchObject({ conversationId: 'new', conversationFrom: 'report' });
  });

  it('a launch id is the launch\'s: a respawn without one starts with none', () => {
    const r = rig({ agent: 'claude' });
    r.start(false);
    r.arb.setLaunchConversation('11111111-1111-4111-8111-111111111111');
    expect(r.start(true).view.conversationId).toBeNull();
  });
});

describe('custom labels and metadata', () => {
  it('a custom report\'s own label is the reported agent; release gives the window its agent back', () => {
    const r = rig({ agent: 'unknown' });
    r.start(false);
    expect(r.arb.report({ source: 'custom:b', agent: 'mybot', state: 'working' }).view.reportedAgent).toBe('mybot');
    expect(r.arb.release({ source: 'custom:b', agent: 'mybot' }).view.reportedAgent).toBeNull();
    expect(r.arb.report({ source: 'custom:b', agent: 'unknown', state: 'working' }).view.reportedAgent).toBeNull();
  });

  it('metadata: newest title wins, labels merge, a ttl expires at the arbiter\'s deadline (a change)', () => {
    const r = rig({ agent: 'claude' });
    r.start(false);
    r.screen(IDLE_PROMPT, 'p');
    r.arb.metadata({ source: 'a', title: 'first', stateLabels: { idle: 'resting' } });
    let u = r.arb.metadata({ source: 'b', title: 'second', stateLabels: { working: 'busy' }, ttlMs: 1000 });
    expect(u.view.presentation).toEqual({ title: 'second', displayAgent: null, stateLabels: { idle: 'resting', working: 'busy' }, tokens: {} });
    expect(u.change).not.toBeNull();
    expect(u.deadline).toBe(r.clock.t + 1000);
    r.clock.advance(1000);
    u = r.arb.tick();
    expect(u.view.presentation.title).toBe('first');
    expect(u.change).not.toBeNull();
    // a clear patches the source's entry; a set alone replaces it
    r.arb.metadata({ source: 'a', clearStateLabels: true });
    expect(r.arb.view().presentation).toMatchObject({ title: 'first', stateLabels: {} });
    r.arb.metadata({ source: 'a', displayAgent: 'Claude (review)' });
    expect(r.arb.view().presentation).toMatchObject({ title: null, displayAgent: 'Claude (review)' });
  });

  it("metadata of the agent's official sources, or naming it, goes when it exits; later reports about it are dropped", () => {
    const r = rig({ agent: 'claude' });
    r.start(false);
    r.arb.metadata({ source: 'herdr:claude', title: 'official' });
    r.arb.metadata({ source: 'custom:x', agent: 'claude', displayAgent: 'named' });
    r.arb.metadata({ source: 'custom:y', stateLabels: { idle: 'stays' } });
    expect(r.arb.processExit().view.presentation).toMatchObject({ title: null, displayAgent: null, stateLabels: { idle: 'stays' } });
    expect(r.arb.metadata({ source: 'custom:x', agent: 'claude', title: 'late' }).accepted).toBe(false);
  });
});
