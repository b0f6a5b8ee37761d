import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, RawClient, req, startServer, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await startServer({ requestTimeoutMs: 300 });
});
afterEach(async () => {
  await h.cleanup();
});

describe('framing and request shape', () => {
  it('answers ping with pong and protocol 20, then closes', async () => {
    const c = new RawClient(h.path);
    c.send(req('ping', {}) + '\n');
    const [reply] = await c.waitLines(1);
    expect(reply).toEqual({
      id: 'r1',
      result: { type: 'pong', version: 'test', protocol: 20, capabilities: { live_handoff: false, detached_server_daemon: true } },
    });
    await c.waitClosed();
  });

  it('accepts a request split over many writes and CRLF endings', async () => {
    const c = new RawClient(h.path);
    const line = req('ping', {}, 'split');
    for (const ch of line) c.send(ch);
    c.send('\r\n');
    const [reply] = await c.waitLines(1);
    expect((reply as { id: string }).id).toBe('split');
    c.destroy();
  });

  it('ignores blank lines before the request', async () => {
    const reply = await call(h.path, '\n  \n' + req('ping', {}, 'b'));
    expect(reply.id).toBe('b');
  });

  it('replies invalid_request with id "" to invalid JSON and keeps the connection usable', async () => {
    const c = new RawClient(h.path);
    c.send('{not json\n');
    await c.waitLines(1);
    expect(c.lines[0]).toMatchObject({ id: '', error: { code: 'invalid_request' } });
    expect((c.lines[0] as { error: { message: string } }).error.message).toMatch(/^invalid request: /);
    c.send(req('ping', {}, 'again') + '\n');
    await c.waitLines(2);
    expect(c.lines[1]).toMatchObject({ id: 'again', result: { type: 'pong' } });
    await c.waitClosed();
  });

  it('refuses invalid UTF-8 and keeps the connection usable', async () => {
    const c = new RawClient(h.path);
    c.sock.write(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]));
    await c.waitLines(1);
    expect(c.lines[0]).toMatchObject({ id: '', error: { code: 'invalid_request' } });
    c.send(req('ping', {}) + '\n');
    await c.waitLines(2);
    c.destroy();
  });

  it.each([
    ['non-object', '[1,2]'],
    ['missing id', JSON.stringify({ method: 'ping', params: {} })],
    ['numeric id', JSON.stringify({ id: 7, method: 'ping', params: {} })],
    ['missing params', JSON.stringify({ id: 'x', method: 'ping' })],
    ['array params', JSON.stringify({ id: 'x', method: 'ping', params: [] })],
    ['unknown method', req('pane.frobnicate', {})],
  ])('refuses %s with id "" and invalid_request', async (_name, line) => {
    const reply = await call(h.path, line);
    expect(reply).toMatchObject({ id: '', error: { code: 'invalid_request' } });
  });

  it('reads one request per connection (a second pipelined line is not answered)', async () => {
    const c = new RawClient(h.path);
    c.send(req('ping', {}, 'one') + '\n' + req('ping', {}, 'two') + '\n');
    await c.waitClosed();
    expect(c.lines).toHaveLength(1);
    expect((c.lines[0] as { id: string }).id).toBe('one');
  });

  it('times out a client that sends nothing', async () => {
    const c = new RawClient(h.path);
    await c.connected();
    const t0 = Date.now();
    await c.waitClosed(3000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(c.lines[0]).toMatchObject({ id: '', error: { code: 'timeout' } });
  });

  it('times out a client that stops in the middle of a line', async () => {
    const c = new RawClient(h.path);
    c.send('{"id":"x","meth');
    await c.waitClosed(3000);
    expect(c.lines[0]).toMatchObject({ error: { code: 'timeout' } });
  });

  it('does not time out a request whose handler takes longer than the idle timeout', async () => {
    h.server.handle('nerdr.slow', async () => {
      await new Promise((r) => setTimeout(r, 500));
      return { type: 'slow_done' };
    });
    const reply = await call(h.path, req('nerdr.slow', {}));
    expect(reply).toEqual({ id: 'r1', result: { type: 'slow_done' } });
  });
});

describe('oversized lines', () => {
  it('refuses a line over the limit and closes before the client has sent it all', async () => {
    const c = new RawClient(h.path);
    await c.connected();
    // 64 MiB without a newline: far more than any socket buffer can absorb.
    const total = 64 * 1024 * 1024;
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    let sent = 0;
    const rssBefore = process.memoryUsage().rss;
    c.send('{"id":"big","method":"nerdr.hook","params":{"x":"');
    await new Promise<void>((resolve) => {
      const pump = () => {
        while (sent < total && !c.closed && !c.sock.destroyed) {
          sent += chunk.length;
          if (!c.sock.write(chunk)) {
            c.sock.once('drain', pump);
            return;
          }
        }
        resolve();
      };
      c.sock.once('close', () => resolve());
      pump();
    });
    await c.waitClosed(5000);
    expect(sent).toBeLessThan(total);
    expect(c.lines[0]).toMatchObject({ id: '', error: { code: 'invalid_request' } });
    expect((c.lines[0] as { error: { message: string } }).error.message).toMatch(/longer than 1048576 bytes/);
    // The server never held the whole thing (same process: generous bound).
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(48 * 1024 * 1024);
  });

  it('accepts a line of exactly the limit', async () => {
    await h.cleanup();
    h = await startServer({ maxLineBytes: 200 });
    const base = req('ping', { pad: '' });
    const line = req('ping', { pad: 'x'.repeat(200 - base.length) });
    expect(Buffer.byteLength(line)).toBe(200);
    const reply = await call(h.path, line);
    expect(reply).toMatchObject({ result: { type: 'pong' } });
    const tooLong = req('ping', { pad: 'x'.repeat(201 - base.length) });
    const reply2 = await call(h.path, tooLong);
    expect(reply2).toMatchObject({ error: { code: 'invalid_request' } });
  });
});
