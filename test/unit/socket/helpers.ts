// Shared test plumbing: a real server on a temp socket, and raw line clients.
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSocketServer, type HookReport, type Report, type SocketServer, type SocketServerOptions } from '../../../src/supervisor/socket/index.js';

export const SECRET = 'tab-secret-1';
export const WINDOW = { id: '@1' };

export interface Harness {
  dir: string;
  path: string;
  server: SocketServer;
  reports: Report<typeof WINDOW>[];
  hooks: HookReport<typeof WINDOW>[];
  cleanup(): Promise<void>;
}

export async function startServer(extra: Partial<SocketServerOptions<typeof WINDOW>> = {}): Promise<Harness> {
  const base = await mkdtemp(join(tmpdir(), 'nerdr-sock-'));
  const dir = join(base, 'state');
  const path = join(dir, 'nerdr.sock');
  const reports: Report<typeof WINDOW>[] = [];
  const hooks: HookReport<typeof WINDOW>[] = [];
  const server = await createSocketServer<typeof WINDOW>({
    path,
    authenticate: (s) => (s === SECRET ? WINDOW : null),
    onReport: (r) => void reports.push(r),
    onHook: (h) => void hooks.push(h),
    version: 'test',
    ...extra,
  });
  return {
    dir,
    path,
    server,
    reports,
    hooks,
    async cleanup() {
      await server.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** A raw connection that collects reply lines. */
export class RawClient {
  readonly sock: Socket;
  private buf = '';
  readonly lines: unknown[] = [];
  private waiters: (() => void)[] = [];
  closed = false;
  readonly closedP: Promise<void>;

  constructor(path: string) {
    this.sock = connect(path);
    this.sock.setEncoding('utf8');
    this.sock.on('data', (d: string) => {
      this.buf += d;
      let nl: number;
      while ((nl = this.buf.indexOf('\n')) !== -1) {
        this.lines.push(JSON.parse(this.buf.slice(0, nl)));
        this.buf = this.buf.slice(nl + 1);
      }
      this.wake();
    });
    this.sock.on('error', () => {});
    this.closedP = new Promise((r) =>
      this.sock.on('close', () => {
        this.closed = true;
        this.wake();
        r();
      }),
    );
  }

  connected(): Promise<void> {
    return new Promise((r, j) => {
      this.sock.once('connect', () => r());
      this.sock.once('error', j);
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  send(text: string): void {
    this.sock.write(text);
  }

  /** Waits (with a deadline) until `n` lines arrived. */
  async waitLines(n: number, timeoutMs = 3000): Promise<unknown[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.lines.length < n) {
      if (this.closed) throw new Error(`closed after ${this.lines.length} lines`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${n} lines (have ${this.lines.length})`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
    return this.lines;
  }

  async waitClosed(timeoutMs = 3000): Promise<void> {
    let t: NodeJS.Timeout | undefined;
    await Promise.race([
      this.closedP,
      new Promise((_r, j) => (t = setTimeout(() => j(new Error('connection not closed in time')), timeoutMs))),
    ]);
    clearTimeout(t);
  }

  destroy(): void {
    this.sock.destroy();
  }
}

/** One request on a fresh connection; returns the reply line. */
export async function call(path: string, line: string): Promise<Record<string, unknown>> {
  const c = new RawClient(path);
  c.send(line.endsWith('\n') ? line : line + '\n');
  const [reply] = await c.waitLines(1);
  c.destroy();
  return reply as Record<string, unknown>;
}

export function req(method: string, params: unknown, id = 'r1'): string {
  return JSON.stringify({ id, method, params });
}
