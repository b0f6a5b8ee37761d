// The fast reads (src/cli/read-fast.ts): which command lines they answer, that they print what
// the full CLI prints, and that they hand the command back when no supervisor answers. A real
// unix socket at the supervisor's path stands for it.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseFastRead, runFastRead, statusLine } from '../../../src/cli/read-fast.js';
import { report, socketError } from '../../../src/errors.js';
import { serverFiles } from '../../../src/paths.js';
import { SocketRequestError } from '../../../src/supervisor/socket/client.js';
import { resolveSocket } from '../../../src/tmux/socket-path.js';
import { visible } from '../../../src/text.js';

describe('parseFastRead', () => {
  it('takes ls --json, status and status --json, after -L or -S', () => {
    expect(parseFastRead(['ls', '--json'])).toMatchObject({ method: 'nerdr.ls', server: {} });
    expect(parseFastRead(['status'])).toMatchObject({ method: 'nerdr.status', server: {} });
    expect(parseFastRead(['status', '--json'])).toMatchObject({ method: 'nerdr.status' });
    expect(parseFastRead(['-L', 'work', 'ls', '--json'])).toMatchObject({ server: { name: 'work' } });
    expect(parseFastRead(['-S', '/tmp/s', 'status'])).toMatchObject({ server: { socket: '/tmp/s' } });
  });

  it('leaves everything else to the full CLI', () => {
    for (const args of [
      ['ls'], // the table: for people, not polled
      ['ls', '--json', '--fleet'],
      ['ls', '--fleet', '--json'],
      ['status', '--fleet'],
      ['--json', 'ls'],
      ['ls --json'],
      ['-L', 'a', '-L', 'b', 'ls', '--json'],
      ['-L', 'a', '-S', 'b', 'ls', '--json'],
      ['-L', '--json', 'ls'],
      ['-Lwork', 'ls', '--json'],
      ['status', '--help'],
      ['explain', 'ls'],
      [],
    ]) expect(parseFastRead(args), args.join(' ')).toBeNull();
  });
});

describe('statusLine', () => {
  it('counts by state in the CLI order, or says there are none', () => {
    expect(statusLine({ counts: { idle: 2, blocked: 1, working: 3 }, total: 6 })).toBe('✋1 blocked  ⏳3 working  ○2 idle');
    expect(statusLine({ counts: {}, total: 0 })).toBe('no agents');
  });
});

describe('runFastRead', () => {
  let dir: string;
  let server: Server | null = null;
  let out: string;
  let err: string;
  const env = (): NodeJS.ProcessEnv => ({ NERDR_STATE_DIR: dir, TMUX_TMPDIR: dir });

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-fast-'));
    out = err = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((err += String(s)), true));
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    process.exitCode = undefined;
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = null;
    rmSync(dir, { recursive: true, force: true });
  });

  /** A supervisor's socket for `-L work` that answers each request line with `answer(request)`. */
  async function supervisor(answer: (req: { id: string; method: string }) => unknown): Promise<string[]> {
    const methods: string[] = [];
    const socket = serverFiles(resolveSocket({ name: 'work' }, env()), env()).socket;
    server = createServer((c) => {
      let buf = '';
      c.on('data', (d) => {
        buf += d.toString();
        const nl = buf.indexOf('\n');
        if (nl < 0) return;
        const req = JSON.parse(buf.slice(0, nl)) as { id: string; method: string };
        methods.push(req.method);
        c.end(JSON.stringify({ id: req.id, ...(answer(req) as object) }) + '\n');
      });
    });
    await new Promise<void>((r) => server!.listen(socket, r));
    return methods;
  }

  it('prints the list and the counts as the CLI does', async () => {
    const agents = [{ name: 'a', state: 'idle', cwd: '/x' }];
    const methods = await supervisor((req) => ({ result: req.method === 'nerdr.ls' ? { agents } : { counts: { idle: 1 }, total: 1 } }));
    expect(await runFastRead(['-L', 'work', 'ls', '--json'], env())).toBe(true);
    expect(out).toBe(JSON.stringify(agents, null, 2) + '\n');
    out = '';
    expect(await runFastRead(['-L', 'work', 'status'], env())).toBe(true);
    expect(out).toBe('○1 idle\n');
    out = '';
    expect(await runFastRead(['-L', 'work', 'status', '--json'], env())).toBe(true);
    expect(out).toBe(JSON.stringify({ counts: { idle: 1 }, total: 1 }, null, 2) + '\n');
    expect(methods).toEqual(['nerdr.ls', 'nerdr.status', 'nerdr.status']);
  });

  it("says the supervisor's error as the CLI says it, with its exit status", async () => {
    const reply = { code: 'not_permitted', message: 'not yours', fix: 'ask its owner' };
    await supervisor(() => ({ error: reply }));
    expect(await runFastRead(['-L', 'work', 'ls', '--json'], env())).toBe(true);
    const expected = report(socketError(new SocketRequestError(reply.code, reply.message, { error: reply }, reply.fix)), false);
    expect(err).toBe(visible(expected.text, { lines: true }));
    expect(err).toContain('not yours');
    expect(process.exitCode).toBe(expected.exit);
    expect(out).toBe('');
  });

  it('hands the command back when no supervisor answers, or no server is named', async () => {
    expect(await runFastRead(['-L', 'work', 'ls', '--json'], env())).toBe(false);
    expect(await runFastRead(['ls', '--json'], env())).toBe(false); // not inside tmux: the CLI says so
    expect(await runFastRead(['ls'], env())).toBe(false);
    expect(out + err).toBe('');
  });
});
