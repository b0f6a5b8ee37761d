// The supervisor source over a real socket server: the methods' names and params as the
// supervisor takes them, its refusals kept with their code and fix, and the stream followed.

import { afterEach, describe, expect, it } from 'vitest';
import { RpcError } from '../../../src/supervisor/socket/index.js';
import { SourceError, supervisorSource } from '../../../src/web/source.js';
import { startServer, type Harness } from '../socket/helpers.js';
import { blockedRow } from './fake-source.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.cleanup();
  h = null;
});

describe('the supervisor as the page\'s source', () => {
  it('asks nerdr.inbox, nerdr.answer, nerdr.snooze and nerdr.cancel with their params', async () => {
    h = await startServer();
    const seen: [string, unknown][] = [];
    h.server.handle('nerdr.inbox', (p) => (seen.push(['nerdr.inbox', p]), { rows: [blockedRow()] }));
    h.server.handle('nerdr.answer', (p) => (seen.push(['nerdr.answer', p]), { target: '@3', prompt: 'p1', option: null, keys: ['1'] }));
    h.server.handle('nerdr.snooze', (p) => (seen.push(['nerdr.snooze', p]), { id: 'p1', until: 5 }));
    h.server.handle('nerdr.cancel', (p) => (seen.push(['nerdr.cancel', p]), { id: 'm1' }));
    const s = supervisorSource(h.path);
    expect((await s.inbox())[0]!.id).toBe('p1');
    await s.answer({ target: '@3', prompt: 'p1', choice: 'approve' });
    await s.snooze({ id: 'p1', forMs: 1000 });
    await s.cancel({ id: 'm1' });
    expect(seen).toEqual([
      ['nerdr.inbox', {}],
      ['nerdr.answer', { target: '@3', prompt: 'p1', choice: 'approve' }],
      ['nerdr.snooze', { id: 'p1', forMs: 1000 }],
      ['nerdr.cancel', { id: 'm1' }],
    ]);
  });

  it("a refusal keeps the supervisor's code, words and fix", async () => {
    h = await startServer();
    h.server.handle('nerdr.answer', () => {
      throw new RpcError('prompt_changed', 'the prompt changed: @3 now shows p2', false, 'answer p2: nerdr answer @3 approve --prompt p2');
    });
    const err = await supervisorSource(h.path).answer({ target: '@3', prompt: 'p1', choice: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect(err).toMatchObject({ code: 'prompt_changed', message: 'the prompt changed: @3 now shows p2', fix: 'answer p2: nerdr answer @3 approve --prompt p2' });
  });

  it('follows nerdr.subscribe: a change on connecting and on every event; the stop closes the stream', async () => {
    h = await startServer();
    let push: ((n: number) => void) | null = null;
    let aborted!: () => void;
    const abortedP = new Promise<void>((r) => (aborted = r));
    h.server.handle('nerdr.subscribe', (_p, ctx) => {
      const s = ctx.stream();
      push = (n) => s.event('agents', { agents: [], n });
      s.signal.addEventListener('abort', () => aborted());
      return { type: 'subscription_started', agents: [] };
    });
    let changes = 0;
    let wake: (() => void) | null = null;
    const stop = supervisorSource(h.path).follow(() => {
      changes++;
      wake?.();
    });
    const until = async (n: number) => {
      while (changes < n) await new Promise<void>((r) => (wake = r));
    };
    await until(1);
    push!(1);
    push!(2);
    await until(3);
    stop();
    await abortedP;
  });
});
