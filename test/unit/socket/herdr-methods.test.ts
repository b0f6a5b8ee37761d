import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CODES } from '../../../src/errors.js';
import { call, req, SECRET, startServer, WINDOW, type Harness } from './helpers.js';
import type { Report } from '../../../src/supervisor/socket/index.js';
import { applyHerdrReport } from '../../../src/supervisor/reports.js';
import { Arbiter } from '../../../src/state/index.js';

let h: Harness;
beforeEach(async () => {
  h = await startServer();
});
afterEach(async () => {
  await h.cleanup();
});

const base = { pane_id: SECRET, source: 'custom:me', agent: 'my-agent' };
const ok = { id: 'r1', result: { type: 'ok' } };

/** Sends a raw params text (to control exact number literals). */
function rawReq(method: string, paramsText: string): string {
  return `{"id":"r1","method":"${method}","params":${paramsText}}`;
}

describe('pane.report_agent', () => {
  it('accepts a full report and passes it on with the window', async () => {
    const reply = await call(
      h.path,
      req('pane.report_agent', { ...base, state: 'blocked', message: 'needs approval', seq: 5, agent_session_id: 'abc-123', agent_session_path: '/tmp/s.jsonl', extra: 1 }),
    );
    expect(reply).toEqual(ok);
    expect(h.reports).toEqual([
      { kind: 'report_agent', window: WINDOW, source: 'custom:me', agent: 'my-agent', state: 'blocked', message: 'needs approval', seq: 5n, agentSessionId: 'abc-123', agentSessionPath: '/tmp/s.jsonl' },
    ]);
  });

  it.each(['idle', 'working', 'blocked', 'unknown'])('accepts state %s', async (state) => {
    expect(await call(h.path, req('pane.report_agent', { ...base, state }))).toEqual(ok);
  });

  it.each(['done', 'Working', '', 3, null])('refuses state %j as an invalid request', async (state) => {
    const reply = await call(h.path, req('pane.report_agent', { ...base, state }));
    expect(reply).toMatchObject({ id: '', error: { code: 'invalid_request' } });
    expect(h.reports).toHaveLength(0);
  });

  it.each(['pane_id', 'source', 'agent', 'state'])('refuses a report without %s', async (key) => {
    const params: Record<string, unknown> = { ...base, state: 'idle' };
    delete params[key];
    const reply = await call(h.path, req('pane.report_agent', params));
    expect(reply).toMatchObject({ id: '', error: { code: 'invalid_request' } });
  });

  it('refuses an empty agent label with invalid_agent (id echoed)', async () => {
    const reply = await call(h.path, req('pane.report_agent', { ...base, agent: '   ', state: 'idle' }));
    expect(reply).toEqual({ id: 'r1', error: { code: 'invalid_agent', message: 'agent label must not be empty' } });
  });

  it('canonicalises known agent labels and keeps unknown ones', async () => {
    for (const [given, want] of [['Claude-Code', 'claude'], ['codex.exe', 'codex'], ['antigravity-cli', 'agy'], ['ghcs', 'copilot'], ['  Custom Bot ', 'Custom Bot']]) {
      await call(h.path, req('pane.report_agent', { ...base, source: `s-${given}`, agent: given, state: 'idle' }));
      expect(h.reports.at(-1)?.agent).toBe(want);
    }
  });

  it('accepts an empty source over the socket (herdr does not validate it)', async () => {
    expect(await call(h.path, req('pane.report_agent', { ...base, source: '', state: 'idle' }))).toEqual(ok);
    expect(h.reports[0]?.source).toBe('');
  });
});

describe('secrets', () => {
  it('refuses a wrong secret and changes nothing', async () => {
    const reply = await call(h.path, req('pane.report_agent', { ...base, pane_id: 'w1:p1', state: 'working' }));
    expect(reply).toMatchObject({ id: 'r1', error: { code: 'pane_not_found' } });
    expect(JSON.stringify(reply)).not.toContain('w1:p1');
    expect(h.reports).toHaveLength(0);
  });

  it('refuses an empty secret without asking authenticate', async () => {
    let asked = 0;
    await h.cleanup();
    h = await startServer({ authenticate: () => (asked++, WINDOW) });
    const reply = await call(h.path, req('pane.release_agent', { ...base, pane_id: '' }));
    expect(reply).toMatchObject({ error: { code: 'pane_not_found' } });
    expect(asked).toBe(0);
  });

  it('supports an async authenticate', async () => {
    await h.cleanup();
    h = await startServer({ authenticate: async (s) => (s === SECRET ? WINDOW : null) });
    expect(await call(h.path, req('pane.release_agent', base))).toEqual(ok);
    expect(h.reports[0]?.kind).toBe('release_agent');
  });

  it('passes nothing on for a wrong secret', async () => {
    await call(h.path, req('pane.report_agent', { ...base, pane_id: 'nope', state: 'idle', seq: 100 }));
    expect(h.reports).toHaveLength(0);
  });
});

describe('seq (u64, exact)', () => {
  const U64_MAX = '18446744073709551615';

  it('keeps nanosecond seqs exact beyond 2^53, and leaves judging them to the window (every one is passed on)', async () => {
    // These two differ by 1 but are the same JS number.
    const a = '1700000000000000001';
    const b = '1700000000000000002';
    expect(Number(a)).toBe(Number(b));
    await call(h.path, rawReq('pane.report_agent', `{"pane_id":"${SECRET}","source":"s","agent":"x","state":"working","seq":${a}}`));
    await call(h.path, rawReq('pane.report_agent', `{"pane_id":"${SECRET}","source":"s","agent":"x","state":"idle","seq":${b}}`));
    await call(h.path, rawReq('pane.report_agent', `{"pane_id":"${SECRET}","source":"s","agent":"x","state":"working","seq":${a}}`));
    expect(h.reports.map((r) => [r.state, r.seq])).toEqual([
      ['working', BigInt(a)],
      ['idle', BigInt(b)],
      ['working', BigInt(a)],
    ]);
  });

  it('accepts 0 and u64::MAX', async () => {
    expect(await call(h.path, rawReq('pane.report_agent', `{"pane_id":"${SECRET}","source":"a","agent":"x","state":"idle","seq":0}`))).toEqual(ok);
    expect(await call(h.path, rawReq('pane.report_agent', `{"pane_id":"${SECRET}","source":"b","agent":"x","state":"idle","seq":${U64_MAX}}`))).toEqual(ok);
    expect(h.reports.map((r) => r.seq)).toEqual([0n, BigInt(U64_MAX)]);
  });

  it.each([
    ['2^64', '18446744073709551616'],
    ['negative', '-1'],
    ['fraction', '1.5'],
    ['integral float', '1.0'],
    ['exponent', '1e3'],
    ['string', '"5"'],
    ['bool', 'true'],
    ['huge', '1' + '0'.repeat(30)],
  ])('refuses seq %s as an invalid request', async (_n, lit) => {
    const reply = await call(h.path, rawReq('pane.report_agent', `{"pane_id":"${SECRET}","source":"s","agent":"x","state":"idle","seq":${lit}}`));
    expect(reply).toMatchObject({ id: '', error: { code: 'invalid_request' } });
    expect(h.reports).toHaveLength(0);
  });

  it('treats seq null as absent', async () => {
    expect(await call(h.path, rawReq('pane.release_agent', `{"pane_id":"${SECRET}","source":"s","agent":"x","seq":null}`))).toEqual(ok);
    expect(h.reports[0]?.seq).toBeUndefined();
  });

  it('uses the last duplicate seq key, like JSON.parse', async () => {
    await call(h.path, rawReq('pane.release_agent', `{"pane_id":"${SECRET}","source":"s","agent":"x","seq":1,"nested":{"seq":99},"seq":7}`));
    expect(h.reports[0]?.seq).toBe(7n);
  });

  it('finds seq whatever the key order and whitespace', async () => {
    await call(h.path, `{ "params" : { "seq" :\t12345678901234567890 , "pane_id":"${SECRET}","source":"s","agent":"x"} , "method":"pane.release_agent","id":"r1"}`);
    expect(h.reports[0]?.seq).toBe(12345678901234567890n);
  });
});

// Freshness is the window's: the socket passes every authenticated report to applyHerdrReport
// and the window's arbiter judges the seq, as the supervisor wires them.
describe('seq, judged by the window (socket → arbiter)', () => {
  let w: Harness;
  let arb: Arbiter;
  let accepted: Report<typeof WINDOW>[];
  let t = 1_000_000;
  beforeEach(async () => {
    arb = new Arbiter({ agent: 'claude', clock: () => t });
    arb.processStart({ grace: false });
    accepted = [];
    w = await startServer({
      onReport: (r) => {
        const u = applyHerdrReport(arb, r);
        if (u?.accepted) accepted.push(r);
      },
    });
  });
  afterEach(async () => {
    await w.cleanup();
  });

  it('drops stale and equal seqs (still ok), per source', async () => {
    const send = (source: string, seq?: number) =>
      call(w.path, req('pane.report_agent', { ...base, source, state: 'working', ...(seq === undefined ? {} : { seq }) }));
    expect(await send('a', 10)).toEqual(ok);
    expect(await send('a', 10)).toEqual(ok);
    expect(await send('a', 9)).toEqual(ok);
    expect(await send('b', 1)).toEqual(ok);
    expect(await send('a', 11)).toEqual(ok);
    expect(accepted.map((r) => [r.source, r.seq])).toEqual([
      ['a', 10n],
      ['b', 1n],
      ['a', 11n],
    ]);
  });

  it('accepts unsequenced reports only until the source sends a sequenced one', async () => {
    const send = (seq?: number) => call(w.path, req('pane.report_agent', { ...base, state: 'idle', ...(seq === undefined ? {} : { seq }) }));
    await send();
    await send();
    await send(1);
    await send();
    expect(accepted.map((r) => r.seq)).toEqual([undefined, undefined, 1n]);
  });

  it('shares the counter between report, session and release methods', async () => {
    // session references come only from an agent's official source
    const off = { pane_id: SECRET, source: 'herdr:claude', agent: 'claude' };
    await call(w.path, req('pane.report_agent_session', { ...off, agent_session_id: 's-1', seq: 5 }));
    await call(w.path, req('pane.report_agent', { ...off, state: 'working', seq: 4 }));
    await call(w.path, req('pane.report_agent', { ...off, state: 'idle', seq: 6 }));
    expect(accepted.map((r) => r.kind)).toEqual(['report_agent_session', 'report_agent']);
  });

  it('a reporter that counts from 1 again after its agent restarted in the same window is heard', async () => {
    await call(w.path, req('pane.report_agent', { ...base, state: 'working', seq: 7 }));
    arb.processExit();
    arb.processStart({ grace: false });
    expect(await call(w.path, req('pane.report_agent', { ...base, state: 'blocked', seq: 1 }))).toEqual(ok);
    expect(accepted.map((r) => [r.state, r.seq])).toEqual([
      ['working', 7n],
      ['blocked', 1n],
    ]);
    expect(arb.view().state).toBe('blocked');
  });

  it('metadata has counters of its own per source; unsequenced metadata is always fresh', async () => {
    const meta = (title: string, seq?: number) =>
      call(w.path, req('pane.report_metadata', { pane_id: SECRET, source: 'custom:me', title, ...(seq === undefined ? {} : { seq }) }));
    await call(w.path, req('pane.report_agent', { ...base, state: 'working', seq: 50 }));
    await meta('one', 3);
    await meta('stale', 2);
    await meta('free');
    await meta('two', 4);
    expect(accepted.filter((r) => r.kind === 'report_metadata').map((r) => r.metadata?.title)).toEqual(['one', 'free', 'two']);
  });
});

describe('session ids and cleaning', () => {
  it('rejects conversation ids that look like flags and changes nothing', async () => {
    const reply = await call(h.path, req('pane.report_agent_session', { ...base, agent_session_id: '--dangerously-skip-permissions' }));
    expect(reply).toMatchObject({ id: 'r1', error: { code: 'invalid_agent_session' } });
    const reply2 = await call(h.path, req('pane.report_agent', { ...base, state: 'idle', agent_session_id: '-x' }));
    expect(reply2).toMatchObject({ error: { code: 'invalid_agent_session' } });
    expect(h.reports).toHaveLength(0);
  });

  it('drops session references herdr would drop, keeping the rest of the report', async () => {
    await call(h.path, req('pane.report_agent_session', { ...base, agent_session_id: 'a\u0001b', agent_session_path: 'relative/path' }));
    await call(h.path, req('pane.report_agent_session', { ...base, source: 's2', agent_session_id: 'x'.repeat(513) }));
    await call(h.path, req('pane.report_agent_session', { ...base, source: 's3', agent_session_id: '', agent_session_path: '/' + 'p'.repeat(4096) }));
    expect(h.reports).toHaveLength(3);
    for (const r of h.reports) {
      expect(r.agentSessionId).toBeUndefined();
      expect(r.agentSessionPath).toBeUndefined();
    }
  });

  it('keeps only known session_start_source values (trimmed)', async () => {
    await call(h.path, req('pane.report_agent_session', { ...base, source: 'a', agent_session_id: 'id1', session_start_source: ' resume ' }));
    await call(h.path, req('pane.report_agent_session', { ...base, source: 'b', agent_session_id: 'id2', session_start_source: 'reboot' }));
    expect(h.reports.map((r) => r.sessionStartSource)).toEqual(['resume', undefined]);
  });

  it('removes control characters from text', async () => {
    await call(h.path, req('pane.report_agent', { ...base, source: 'custom:\u001b[31mred', agent: 'bot\u0007', state: 'blocked', message: 'line1\nline2\u001b]0;x\u0007\u009b' }));
    expect(h.reports[0]).toMatchObject({ source: 'custom:[31mred', agent: 'bot', message: 'line1 line2]0;x' });
  });

  it('accepts clear_agent_authority and report_metadata', async () => {
    expect(await call(h.path, req('pane.clear_agent_authority', { pane_id: SECRET, seq: 3 }))).toEqual(ok);
    expect(await call(h.path, req('pane.report_metadata', { pane_id: SECRET, source: 'custom:me', title: 'T\u0007' }))).toEqual(ok);
    const bad = await call(h.path, req('pane.report_metadata', { pane_id: SECRET, source: 'has space' }));
    expect(bad).toMatchObject({ error: { code: 'invalid_metadata_source' } });
    expect(h.reports.map((r) => r.kind)).toEqual(['clear_agent_authority', 'report_metadata']);
    expect(h.reports[1]?.metadata).toMatchObject({ title: 'T', stateLabels: {}, tokens: {}, clearTitle: false });
  });
});

describe('nerdr.hook', () => {
  it('passes an authenticated event on, cleaned', async () => {
    const event = { hook_event_name: 'Stop', session_id: 'abc', last_assistant_message: 'done\u001b[0m', n: 1 };
    const reply = await call(h.path, req('nerdr.hook', { secret: SECRET, agent: 'claude', event }));
    expect(reply).toEqual(ok);
    expect(h.hooks).toEqual([{ window: WINDOW, agent: 'claude', event: { ...event, last_assistant_message: 'done[0m' } }]);
  });

  it('passes a dropped payload on as null with the reason', async () => {
    await call(h.path, req('nerdr.hook', { secret: SECRET, agent: 'codex', event: null, dropped: 'too_large' }));
    expect(h.hooks).toEqual([{ window: WINDOW, agent: 'codex', event: null, dropped: 'too_large' }]);
  });

  it('refuses a wrong or missing secret and changes nothing', async () => {
    const r1 = await call(h.path, req('nerdr.hook', { secret: 'wrong', agent: 'claude', event: {} }));
    expect(r1).toMatchObject({ id: 'r1', error: { code: 'unauthorized' } });
    const r2 = await call(h.path, req('nerdr.hook', { agent: 'claude', event: {} }));
    expect(r2).toMatchObject({ error: { code: 'invalid_request' } });
    expect(h.hooks).toHaveLength(0);
  });

  it.each([
    { session_id: '-rf' },
    { sessionId: '--help' },
    { properties: { sessionID: '-x' } },
    { properties: { info: { id: '--yolo' } } },
  ])('rejects flag-like conversation ids in the payload: %j', async (event) => {
    const reply = await call(h.path, req('nerdr.hook', { secret: SECRET, agent: 'x', event }));
    expect(reply).toMatchObject({ error: { code: 'invalid_agent_session' } });
    expect(h.hooks).toHaveLength(0);
  });

  it('refuses a non-object event', async () => {
    const reply = await call(h.path, req('nerdr.hook', { secret: SECRET, agent: 'x', event: [1] }));
    expect(reply).toMatchObject({ error: { code: 'invalid_request' } });
  });

  it('reports a failing onHook as internal_error', async () => {
    await h.cleanup();
    h = await startServer({
      onHook: () => {
        throw new Error('boom');
      },
    });
    const reply = await call(h.path, req('nerdr.hook', { secret: SECRET, agent: 'x', event: {} }));
    expect(reply).toEqual({ id: 'r1', error: { code: 'internal_error', message: 'boom', fix: CODES.internal_error.fix } });
  });
});
