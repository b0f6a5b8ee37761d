// The socket's memory and time limits: a request must be complete within its deadline from
// accept, however steadily it trickles; all partial lines together hold at most the budget; a
// finished or closed connection gives its bytes back. Timers are injected: nothing here waits
// for a real timeout.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Timers } from '../../../src/supervisor/socket/index.js';
import { call, RawClient, req, startServer, type Harness } from './helpers.js';

/** A timer that fires only when the test says so. */
class ManualTimers implements Timers {
  readonly scheduled: { fn: () => void; ms: number; cleared: boolean; fired: boolean }[] = [];
  setTimeout(fn: () => void, ms: number): unknown {
    const t = { fn, ms, cleared: false, fired: false };
    this.scheduled.push(t);
    return t;
  }
  clearTimeout(h: unknown): void {
    (h as { cleared: boolean }).cleared = true;
  }
  get pending() {
    return this.scheduled.filter((t) => !t.cleared && !t.fired);
  }
  fireAll(): void {
    for (const t of this.pending) {
      t.fired = true;
      t.fn();
    }
  }
}

/** Polls (no sleeping as synchronisation: each turn yields to I/O) until `fn` holds, with a deadline. */
async function until(fn: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe('the request deadline runs from accept, not from the last byte', () => {
  it('a client that keeps sending bytes of a line is still answered timeout and closed at the deadline', async () => {
    const timers = new ManualTimers();
    h = await startServer({ requestTimeoutMs: 10_000, timers });
    const c = new RawClient(h.path);
    await c.connected();
    await until(() => timers.pending.length === 1, 'the deadline of the new connection');
    expect(timers.pending[0]!.ms).toBe(10_000);
    // a slow line: bytes keep arriving, a few at a time; the deadline is not pushed back
    c.send('{"id":"slow","method":"ping","par');
    await until(() => h!.server.bufferedBytes() === 4096, 'the server holding the partial line');
    for (let i = 0; i < 20; i++) {
      c.send('a');
      await new Promise((r) => setImmediate(r));
    }
    // the held buffer grows past its first 4 KiB only once every byte before has arrived
    c.send('b'.repeat(5000));
    await until(() => h!.server.bufferedBytes() === 8192, 'every byte of the partial line held');
    expect(timers.scheduled).toHaveLength(1);
    timers.fireAll();
    await c.waitClosed();
    expect(c.lines).toEqual([{ id: '', error: { code: 'timeout', message: 'no complete request within 10000 ms of connecting' } }]);
    await until(() => h!.server.bufferedBytes() === 0, 'the partial line released');
  });

  it('a complete request clears its deadline; a stream is never timed out', async () => {
    const timers = new ManualTimers();
    h = await startServer({ requestTimeoutMs: 10_000, timers });
    h.server.handle('nerdr.subscribe', (_p, ctx) => {
      ctx.stream();
      return { type: 'subscription_started' };
    });
    const c = new RawClient(h.path);
    c.send(req('nerdr.subscribe', {}) + '\n');
    await c.waitLines(1);
    expect(timers.pending).toEqual([]);
    expect(c.closed).toBe(false);
    c.destroy();
  });
});

describe('all partial lines share one budget', () => {
  const partial = (id: string, bytes: number): string => {
    const head = `{"id":"${id}","method":"ping","params":{"pad":"`;
    return head + 'x'.repeat(bytes - head.length);
  };

  it('a connection that would take the total over the budget is answered overloaded and closed; the others go on; bytes come back', async () => {
    h = await startServer({ maxLineBytes: 32 * 1024, maxBufferedBytes: 64 * 1024 });
    const held: RawClient[] = [];
    for (const id of ['a', 'b', 'c']) {
      const c = new RawClient(h.path);
      await c.connected();
      const before = h.server.bufferedBytes();
      c.send(partial(id, 20 * 1024));
      await until(() => h!.server.bufferedBytes() >= before + 20 * 1024, `${id}'s partial line held`);
      held.push(c);
    }
    expect(h.server.bufferedBytes()).toBeLessThanOrEqual(64 * 1024);
    // a fourth does not fit
    const d = new RawClient(h.path);
    await d.connected();
    d.send(partial('d', 20 * 1024));
    await d.waitClosed();
    expect(d.lines).toHaveLength(1);
    expect(d.lines[0]).toMatchObject({ id: '', error: { code: 'overloaded' } });
    expect((d.lines[0] as { error: { message: string } }).error.message).toMatch(/server busy: partial requests already hold 65536 bytes/);
    // a request that arrives in one piece needs no buffer: still served
    expect(await call(h.path, req('ping', {}, 'p'))).toMatchObject({ id: 'p', result: { type: 'pong' } });
    // a held line completes and is answered; its bytes come back
    const used = h.server.bufferedBytes();
    held[0]!.send('"}}\n');
    await held[0]!.waitLines(1);
    expect(held[0]!.lines[0]).toMatchObject({ id: 'a', result: { type: 'pong' } });
    await until(() => h!.server.bufferedBytes() < used, 'a\'s bytes given back');
    const e = new RawClient(h.path);
    await e.connected();
    e.send(partial('e', 20 * 1024) + '"}}');
    await until(() => h!.server.bufferedBytes() >= 3 * 20 * 1024, 'e held');
    e.send('\n');
    await e.waitLines(1);
    expect(e.lines[0]).toMatchObject({ id: 'e', result: { type: 'pong' } });
    // connections that close give theirs back
    for (const c of held) c.destroy();
    e.destroy();
    await until(() => h!.server.bufferedBytes() === 0 && h!.server.connectionCount() === 0, 'everything released');
  });

  it('a line trickled a byte at a time is held in one buffer of at most twice its size', async () => {
    h = await startServer({ maxLineBytes: 64 * 1024, maxBufferedBytes: 1024 * 1024 });
    const c = new RawClient(h.path);
    await c.connected();
    const line = partial('t', 10 * 1024);
    for (let i = 0; i < 2000; i++) c.send(line[i]!);
    c.send(line.slice(2000));
    await until(() => h!.server.bufferedBytes() >= 10 * 1024, 'the line held');
    expect(h.server.bufferedBytes()).toBeLessThanOrEqual(20 * 1024);
    c.send('"}}\n');
    await c.waitLines(1);
    expect(c.lines[0]).toMatchObject({ id: 't', result: { type: 'pong' } });
    await until(() => h!.server.bufferedBytes() === 0, 'released');
  });
});

describe('nesting', () => {
  it('a request nested deeper than 512 levels is refused before it is parsed; 512 is fine', async () => {
    h = await startServer();
    // the request object and params are two levels; the arrays the rest
    const nested = (levels: number): string => `{"id":"d","method":"ping","params":{"p":${'['.repeat(levels - 2)}${']'.repeat(levels - 2)}}}`;
    expect(await call(h.path, nested(512))).toMatchObject({ id: 'd', result: { type: 'pong' } });
    const deep = await call(h.path, nested(513));
    expect(deep).toMatchObject({ id: '', error: { code: 'invalid_request', message: 'invalid request: nested deeper than 512 levels' } });
    // brackets inside strings do not count
    expect(await call(h.path, req('ping', { s: '['.repeat(10_000) + '\\"' }))).toMatchObject({ result: { type: 'pong' } });
    expect(await call(h.path, '[' .repeat(1024 * 1024 - 1))).toMatchObject({ id: '', error: { code: 'invalid_request' } });
  });
});

describe('fuzzed lines', () => {
  it('random bytes, broken JSON and wrong shapes get error lines; the server stays up and holds nothing after', async () => {
    h = await startServer({ requestTimeoutMs: 60_000 });
    const lines: Buffer[] = [];
    const seed = randomBytes(4).readUInt32LE();
    let x = seed || 1;
    const rnd = (n: number): number => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) % n;
    };
    const shapes = [
      () => randomBytes(1 + rnd(300)),
      () => Buffer.from(JSON.stringify({ id: rnd(2) ? 'x' : 7, method: ['ping', 'pane.report_agent', 'nerdr.hook', 'nope', ''][rnd(5)], params: rnd(2) ? {} : [] })),
      () => Buffer.from('['.repeat(1 + rnd(50_000))),
      () => Buffer.from('{"id":"d","method":"ping","params":' + '{"a":'.repeat(rnd(5000)) + '1' + '}'.repeat(rnd(5000))),
      () => Buffer.from(req('pane.report_agent', { pane_id: 'wrong', source: 's', agent: 'a', state: 'idle', seq: '9'.repeat(rnd(40)) })),
      () => Buffer.from(req('nerdr.hook', { secret: 'wrong', agent: 'x', event: { s: '\u0000\ud800' } })),
      () => Buffer.concat([Buffer.from('{"id":"u","method":"ping","params":{"s":"'), Buffer.from([0xc0 + rnd(64), 0xff]), Buffer.from('"}}')]),
    ];
    for (let i = 0; i < 300; i++) lines.push(shapes[rnd(shapes.length)]!());
    const clients = Array.from({ length: 10 }, () => new RawClient(h!.path));
    try {
      await Promise.all(clients.map((c) => c.connected()));
      for (let i = 0; i < lines.length; i++) {
        const c = clients[i % clients.length]!;
        if (!c.closed) c.sock.write(Buffer.concat([lines[i]!.filter((b) => b !== 0x0a), Buffer.from('\n')]));
      }
      // every client either got its answers or was closed (a valid ping ends the connection)
      const pong = await call(h.path, req('ping', {}, 'alive'));
      expect(pong, `seed ${seed}`).toMatchObject({ id: 'alive', result: { type: 'pong' } });
    } finally {
      for (const c of clients) c.destroy();
    }
    await until(() => h!.server.bufferedBytes() === 0 && h!.server.connectionCount() === 0, `everything released (seed ${seed})`);
  });
});
