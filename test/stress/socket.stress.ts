// The real supervisor's socket under abuse (`npm run test:stress`, not part of `npm test`):
//
//  1. many connections each send most of a 1 MiB line and then hold it, trickling a byte a
//     second: the supervisor's memory stays within the partial-line budget (64 MiB) plus a
//     margin, it keeps answering, and every holder is closed at its request deadline (10 s
//     after connecting) even though its bytes keep coming;
//  2. fuzzed lines (random bytes, invalid UTF-8, broken and deeply nested JSON, wrong shapes,
//     oversized lines, real methods with random params) on many connections: it stays up;
//  3. afterwards its memory goes back down.
//
// NERDR_STRESS_CONNECTIONS (default 2000) sets the number of holders. The figures are printed.
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidAlive, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from '../live/helpers/env.js';

const HOLDERS = Number(process.env.NERDR_STRESS_CONNECTIONS ?? 2000);
// room left for the trickle: the line stays under the 1 MiB limit
const LINE = 1024 * 1024 - 64 * 1024;
const BUDGET = 64 * 1024 * 1024;
/** Sockets, their buffers, V8's own growth: what the supervisor may add beyond the budget. */
const MARGIN = 128 * 1024 * 1024;

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MiB`;

interface Holder {
  sock: Socket;
  closed: boolean;
  reply: string;
}

function hold(sockPath: string): Holder {
  const h: Holder = { sock: connect(sockPath), closed: false, reply: '' };
  h.sock.on('error', () => undefined);
  h.sock.on('data', (d: Buffer) => (h.reply += d.toString('utf8')));
  h.sock.on('close', () => (h.closed = true));
  return h;
}

/** Writes `total` bytes of a line that never ends, with backpressure; stops when the server closes. */
function fill(h: Holder, total: number): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let sent = 0;
  return new Promise((resolve) => {
    const pump = (): void => {
      while (sent < total && !h.closed) {
        const n = Math.min(chunk.length, total - sent);
        sent += n;
        const first = sent === n ? Buffer.from('{"id":"hold","method":"ping","params":{"pad":"') : null;
        const ok = h.sock.write(first ? Buffer.concat([first, chunk.subarray(first.length, n)]) : chunk.subarray(0, n));
        if (!ok) {
          h.sock.once('drain', pump);
          return;
        }
      }
      resolve();
    };
    h.sock.once('close', () => resolve());
    h.sock.once('connect', pump);
  });
}

async function ping(sockPath: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const s = connect(sockPath);
    let buf = '';
    const t = setTimeout(() => {
      s.destroy();
      reject(new Error('no pong within 5 s'));
    }, 5000);
    s.on('error', (e) => {
      clearTimeout(t);
      reject(e);
    });
    s.on('connect', () => s.write('{"id":"p","method":"ping","params":{}}\n'));
    s.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(t);
        s.destroy();
        resolve(JSON.parse(buf.slice(0, nl)));
      }
    });
  });
}

describe.skipIf(!tmuxAvailable)('the supervisor socket under abuse', () => {
  let env: LiveEnv;
  let pid = 0;
  let sockPath = '';
  let baseline = 0;

  beforeAll(async () => {
    env = await startLiveEnv();
    const r = await env.nerdr('ls');
    expect(r.code, r.stderr).toBe(0);
    pid = (await env.supervisorPid())!;
    sockPath = path.join(env.stateDir, readdirSync(env.stateDir).find((f) => f.endsWith('.sock'))!);
    baseline = rssOf(pid);
  }, 60_000);

  afterAll(async () => {
    await env?.cleanup();
  });

  it(`${HOLDERS} connections holding ~1 MiB partial lines and trickling: bounded, answering, all closed at their deadline`, async () => {
    let peak = 0;
    const sample = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 100);
    const holders: Holder[] = [];
    try {
      // opened in waves, so the test's own sockets do not swamp the 2 cores
      for (let i = 0; i < HOLDERS; i += 200) {
        const wave = Array.from({ length: Math.min(200, HOLDERS - i) }, () => hold(sockPath));
        holders.push(...wave);
        await Promise.all(wave.map((h) => fill(h, LINE)));
      }
      const held = holders.filter((h) => !h.closed).length;
      // a byte a second from everyone still connected
      const trickle = setInterval(() => {
        for (const h of holders) if (!h.closed) h.sock.write('a');
      }, 1000);
      try {
        expect(await ping(sockPath)).toMatchObject({ id: 'p', result: { type: 'pong' } });
        const ls = await env.nerdr('ls', '--json');
        expect(ls.code, ls.stderr).toBe(0);
        // the request deadline is 10 s from connecting, however steady the trickle
        await waitFor(() => holders.every((h) => h.closed), { timeoutMs: 60_000, intervalMs: 200, what: `every holder closed (${holders.filter((h) => !h.closed).length} open)` });
      } finally {
        clearInterval(trickle);
      }
      const codes = new Map<string, number>();
      for (const h of holders) {
        const code = /"code":"([a-z_]+)"/.exec(h.reply)?.[1] ?? 'no reply';
        codes.set(code, (codes.get(code) ?? 0) + 1);
      }
      console.log(`holders: ${HOLDERS}, held after filling: ${held}; replies: ${JSON.stringify(Object.fromEntries(codes))}`);
      console.log(`supervisor RSS: baseline ${mib(baseline)}, peak ${mib(peak)} (budget ${mib(BUDGET)}, margin ${mib(MARGIN)})`);
      expect(codes.get('timeout') ?? 0).toBeGreaterThan(0);
      expect(codes.get('overloaded') ?? 0).toBeGreaterThan(0);
      expect(peak - baseline).toBeLessThan(BUDGET + MARGIN);
      expect(pidAlive(pid)).toBe(true);
    } finally {
      clearInterval(sample);
      for (const h of holders) h.sock.destroy();
    }
  }, 240_000);

  it('fuzzed lines on 200 connections at a time: it stays up, answers, and its memory stays bounded', async () => {
    let x = randomBytes(4).readUInt32LE() || 1;
    const seed = x;
    const rnd = (n: number): number => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) % n;
    };
    // real methods, none that changes anything: there is no agent window, targets do not exist
    const methods = ['ping', 'pane.report_agent', 'pane.report_agent_session', 'pane.release_agent', 'pane.clear_agent_authority', 'pane.report_metadata', 'nerdr.hook', 'nerdr.info', 'nerdr.ls', 'nerdr.status', 'nerdr.read', 'nerdr.explain', 'nerdr.send', 'nerdr.wait', 'nerdr.frob', ''];
    const anyValue = (depth: number): unknown => {
      switch (rnd(depth > 3 ? 5 : 8)) {
        case 0: return rnd(2) ? '9'.repeat(rnd(40)) : -rnd(1e9) / 7;
        case 1: return randomBytes(rnd(40)).toString('latin1');
        case 2: return null;
        case 3: return rnd(2) === 1;
        case 4: return '\u0000\ud800\u001b[201~' + 'x'.repeat(rnd(100));
        case 5: return Array.from({ length: rnd(5) }, () => anyValue(depth + 1));
        default: return Object.fromEntries(Array.from({ length: rnd(5) }, () => [['pane_id', 'source', 'agent', 'state', 'seq', 'target', 'message', 'secret', 'event', 'until', 'timeoutMs', '__proto__'][rnd(12)]!, anyValue(depth + 1)]));
      }
    };
    const shapes: (() => Buffer)[] = [
      () => randomBytes(1 + rnd(2000)).filter((b) => b !== 0x0a) as Buffer,
      () => Buffer.from(JSON.stringify({ id: rnd(4) ? `f${rnd(1000)}` : rnd(9), method: methods[rnd(methods.length)], params: anyValue(0) })),
      () => Buffer.from(JSON.stringify({ id: 'w', method: 'nerdr.wait', params: { target: `@${rnd(99)}`, timeoutMs: 1 + rnd(50) } })),
      () => Buffer.from('['.repeat(1 + rnd(1024 * 1024 - 1))),
      () => Buffer.from('{"id":"n","method":"nerdr.hook","params":{"secret":"x","agent":"claude","event":' + '{"a":'.repeat(20_000 + rnd(100_000)) + '1' + '}'.repeat(20_001) + '}}'),
      () => Buffer.alloc(1024 * 1024 + 1 + rnd(1000), 0x20),
      () => Buffer.concat([Buffer.from('{"id":"u","method":"ping","params":{"s":"'), randomBytes(8).map((b) => b | 0x80) as Buffer, Buffer.from('"}}')]),
    ];
    const before = rssOf(pid);
    let peak = before;
    const sample = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 100);
    let lines = 0;
    try {
      for (let round = 0; round < 20; round++) {
        const conns = Array.from({ length: 200 }, () => hold(sockPath));
        await Promise.all(
          conns.map(
            (h) =>
              new Promise<void>((resolve) => {
                h.sock.once('connect', () => {
                  const n = 1 + rnd(5);
                  for (let i = 0; i < n && !h.closed; i++) {
                    lines += 1;
                    h.sock.write(Buffer.concat([shapes[rnd(shapes.length)]!(), Buffer.from(rnd(10) ? '\n' : '')]));
                  }
                  h.sock.end();
                  resolve();
                });
                h.sock.once('close', () => resolve());
              }),
          ),
        );
        await waitFor(() => conns.every((h) => h.closed), { timeoutMs: 30_000, what: `round ${round} closed (seed ${seed})` });
      }
    } finally {
      clearInterval(sample);
    }
    console.log(`fuzz: ${lines} lines on ${20 * 200} connections (seed ${seed}); RSS ${mib(before)} → peak ${mib(peak)}`);
    expect(pidAlive(pid), `seed ${seed}`).toBe(true);
    expect(await ping(sockPath)).toMatchObject({ result: { type: 'pong' } });
    expect(peak - baseline).toBeLessThan(BUDGET + MARGIN);
  }, 240_000);

  it('after the abuse its memory goes back down and it serves as before', async () => {
    expect(pidAlive(pid)).toBe(true);
    expect((await env.supervisorPid())).toBe(pid);
    // released memory shows once V8 collects; no sleeping: poll with a deadline
    const settled = await waitFor(
      () => {
        const r = rssOf(pid);
        return r - baseline < BUDGET ? r : false;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: `RSS back within ${mib(BUDGET)} of the baseline ${mib(baseline)} (now ${mib(rssOf(pid))})` },
    );
    console.log(`supervisor RSS after: ${mib(settled)} (baseline ${mib(baseline)})`);
    const ls = await env.nerdr('ls', '--json');
    expect(ls.code, ls.stderr).toBe(0);
  }, 90_000);
});
