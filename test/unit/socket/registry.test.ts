import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { request, RpcError, SocketRequestError, subscribe } from '../../../src/supervisor/socket/index.js';
import { CODES, TmuxCommandError } from '../../../src/errors.js';
import { call, RawClient, req, startServer, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await startServer();
});
afterEach(async () => {
  await h.cleanup();
});

describe('handler registry', () => {
  it("dispatches to a registered handler with the user's params untouched (a message may hold escapes and line breaks)", async () => {
    let seen: unknown;
    h.server.handle('nerdr.ls', (params) => {
      seen = params;
      return { type: 'agents', agents: [] };
    });
    const reply = await call(h.path, req('nerdr.ls', { filter: 'a\u0007b\nc' }));
    expect(reply).toEqual({ id: 'r1', result: { type: 'agents', agents: [] } });
    expect(seen).toEqual({ filter: 'a\u0007b\nc' });
  });

  it('answers {"type":"ok"} when a handler returns nothing', async () => {
    h.server.handle('nerdr.send', () => undefined);
    expect(await call(h.path, req('nerdr.send', {}))).toEqual({ id: 'r1', result: { type: 'ok' } });
  });

  it('maps RpcError to its code, a tmux refusal to tmux_error and other errors to internal_error, each with a fix', async () => {
    h.server.handle('nerdr.read', () => {
      throw new RpcError('agent_not_found', 'no agent named x');
    });
    h.server.handle('nerdr.explain', async () => {
      throw new Error('oops');
    });
    h.server.handle('nerdr.stop-agent', async () => {
      throw new TmuxCommandError('kill-window', 'the command was skipped (the control client is gone)');
    });
    h.server.handle('nerdr.send', () => {
      throw new RpcError('queue_write_failed', 'the message was not queued: disk full', false, 'free some space');
    });
    expect(await call(h.path, req('nerdr.read', {}))).toEqual({ id: 'r1', error: { code: 'agent_not_found', message: 'no agent named x' } });
    expect(await call(h.path, req('nerdr.explain', {}))).toEqual({ id: 'r1', error: { code: 'internal_error', message: 'oops', fix: CODES.internal_error.fix } });
    expect(await call(h.path, req('nerdr.stop-agent', {}))).toEqual({
      id: 'r1',
      error: { code: 'tmux_error', message: 'tmux kill-window failed: the command was skipped (the control client is gone)', fix: CODES.tmux_error.fix },
    });
    expect(await call(h.path, req('nerdr.send', {}))).toEqual({ id: 'r1', error: { code: 'queue_write_failed', message: 'the message was not queued: disk full', fix: 'free some space' } });
    // the client keeps the fix apart from the message
    const e = await request(h.path, 'nerdr.send', {}).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SocketRequestError);
    expect((e as SocketRequestError).fix).toBe('free some space');
    expect((e as SocketRequestError).message).toBe('the message was not queued: disk full');
  });

  it('refuses to register built-in or duplicate methods, and unregisters', async () => {
    expect(() => h.server.handle('ping', () => 1)).toThrow(/built in/);
    expect(() => h.server.handle('pane.report_agent', () => 1)).toThrow(/built in/);
    const off = h.server.handle('nerdr.x', () => ({ type: 'x' }));
    expect(() => h.server.handle('nerdr.x', () => 1)).toThrow(/already/);
    off();
    expect(await call(h.path, req('nerdr.x', {}))).toMatchObject({ id: '', error: { code: 'invalid_request' } });
  });

  it('writes bigints in results exactly', async () => {
    h.server.handle('nerdr.big', () => ({ type: 'big', v: 18446744073709551615n }));
    const c = new RawClient(h.path);
    let raw = '';
    c.sock.on('data', (d: string) => (raw += d));
    c.send(req('nerdr.big', {}) + '\n');
    await c.waitClosed();
    expect(raw).toBe('{"id":"r1","result":{"type":"big","v":18446744073709551615}}\n');
  });
});

describe('waits and streams', () => {
  it('aborts a waiting handler when the client hangs up', async () => {
    let aborted!: () => void;
    const abortedP = new Promise<void>((r) => (aborted = r));
    let started!: () => void;
    const startedP = new Promise<void>((r) => (started = r));
    h.server.handle('nerdr.wait', (_p, ctx) => {
      started();
      return new Promise((_res, rej) => ctx.signal.addEventListener('abort', () => (aborted(), rej(new Error('gone')))));
    });
    const c = new RawClient(h.path);
    c.send(req('nerdr.wait', {}) + '\n');
    await startedP;
    c.destroy();
    await abortedP;
  });

  it('streams lines after the first reply until the handler ends the stream', async () => {
    h.server.handle('nerdr.subscribe', (_p, ctx) => {
      const s = ctx.stream();
      s.event('queued_before_reply', { n: 0 });
      let n = 0;
      const t = setInterval(() => {
        n += 1;
        s.event('tick', { n });
        if (n === 3) {
          clearInterval(t);
          s.end();
        }
      }, 10);
      s.signal.addEventListener('abort', () => clearInterval(t));
      return { type: 'subscription_started' };
    });
    const c = new RawClient(h.path);
    c.send(req('nerdr.subscribe', {}) + '\n');
    await c.waitClosed();
    expect(c.lines).toEqual([
      { id: 'r1', result: { type: 'subscription_started' } },
      { event: 'queued_before_reply', data: { n: 0 } },
      { event: 'tick', data: { n: 1 } },
      { event: 'tick', data: { n: 2 } },
      { event: 'tick', data: { n: 3 } },
    ]);
  });

  it('aborts a stream when the client closes, and send() then returns false', async () => {
    let stream: { send(m: unknown): boolean; closed: boolean } | undefined;
    let aborted!: () => void;
    const abortedP = new Promise<void>((r) => (aborted = r));
    h.server.handle('nerdr.subscribe', (_p, ctx) => {
      stream = ctx.stream();
      ctx.signal.addEventListener('abort', () => aborted());
      return { type: 'subscription_started' };
    });
    const sub = await subscribe(h.path, 'nerdr.subscribe', {});
    expect(sub.result).toEqual({ type: 'subscription_started' });
    expect(stream!.send({ event: 'one' })).toBe(true);
    const it = sub.events[Symbol.asyncIterator]();
    expect((await it.next()).value).toEqual({ event: 'one' });
    sub.close();
    await abortedP;
    expect(stream!.closed).toBe(true);
    expect(stream!.send({ event: 'two' })).toBe(false);
  });

  it('ends every stream when the server closes', async () => {
    h.server.handle('nerdr.subscribe', (_p, ctx) => {
      ctx.stream();
      return { type: 'subscription_started' };
    });
    const sub = await subscribe(h.path, 'nerdr.subscribe', {});
    await h.server.close();
    await sub.closed;
    const seen: unknown[] = [];
    for await (const e of sub.events) seen.push(e);
    expect(seen).toEqual([]);
  });

  it('reports an error when the handler fails after starting a stream', async () => {
    h.server.handle('nerdr.subscribe', async (_p, ctx) => {
      ctx.stream().send({ event: 'never' });
      throw new RpcError('pane_not_found', 'no such pane');
    });
    const c = new RawClient(h.path);
    c.send(req('nerdr.subscribe', {}) + '\n');
    await c.waitClosed();
    expect(c.lines).toEqual([{ id: 'r1', error: { code: 'pane_not_found', message: 'no such pane' } }]);
  });
});

describe('client', () => {
  it('request() resolves with the result', async () => {
    expect(await request(h.path, 'ping', {})).toMatchObject({ type: 'pong', protocol: 20 });
  });

  it('request() rejects with the server error code and reply', async () => {
    const e = await request(h.path, 'pane.report_agent', { pane_id: 'bad', source: 's', agent: 'a', state: 'idle' }, { id: 'cli:request' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SocketRequestError);
    expect((e as SocketRequestError).code).toBe('pane_not_found');
    expect((e as SocketRequestError).response).toMatchObject({ id: 'cli:request', error: { code: 'pane_not_found' } });
  });

  it('request() says server_not_running when there is no socket', async () => {
    const e = await request(h.path + '.missing', 'ping', {}).catch((x: unknown) => x);
    expect((e as SocketRequestError).code).toBe('server_not_running');
  });

  it('request() times out on a handler that never answers', async () => {
    h.server.handle('nerdr.hang', () => new Promise(() => {}));
    const t0 = Date.now();
    const e = await request(h.path, 'nerdr.hang', {}, { timeoutMs: 200 }).catch((x: unknown) => x);
    expect((e as SocketRequestError).code).toBe('timeout');
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
