// Live check of the mirror against real tmux (3.3a here) on a private server: seed from a
// snapshot, stream %output, and compare with tmux's own capture once the producer stops.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mirror } from '../../src/mirror/mirror.js';
import { buildSeed, buildSnapshotCommand, SNAPSHOT_DISPLAY_FORMAT } from '../../src/mirror/seed.js';
import { MiniControlClient } from './helpers/mirror-control.js';

const execFileP = promisify(execFile);
const PRODUCER = fileURLToPath(new URL('./helpers/mirror-producer.mjs', import.meta.url));
const env: NodeJS.ProcessEnv = { ...process.env, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
delete env.TMUX;
delete env.TMUX_PANE;

let tmuxOk = true;
try {
  await execFileP('tmux', ['-V']);
} catch {
  tmuxOk = false;
}

const servers: { sock: string; path: string }[] = [];

function tmuxArgs(sock: string): string[] {
  return ['-u', '-L', sock, '-f', '/dev/null'];
}

async function tmux(sock: string, ...args: string[]): Promise<Buffer> {
  const { stdout } = await execFileP('tmux', [...tmuxArgs(sock), ...args], { env, encoding: 'buffer' });
  return stdout;
}

/** Reply lines as tmux prints them, without the final newline. */
function toLines(out: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (;;) {
    const nl = out.indexOf(0x0a, start);
    if (nl < 0) break;
    lines.push(out.subarray(start, nl));
    start = nl + 1;
  }
  if (start < out.length) lines.push(out.subarray(start));
  return lines;
}

async function startServer(mode: string, seed: number): Promise<string> {
  const sock = `nerdr-test-${randomBytes(6).toString('hex')}`;
  const entry = { sock, path: '' };
  servers.push(entry);
  await tmux(sock, 'new-session', '-d', '-s', 't', '-x', '120', '-y', '40', `exec node '${PRODUCER}' ${mode} ${seed}`);
  // tmux 3.2a sizes a detached session by default-size (80x24) whatever -x/-y say: fix the size
  await tmux(sock, 'resize-window', '-t', 't', '-x', '120', '-y', '40');
  entry.path = (await tmux(sock, 'display', '-p', '#{socket_path}')).toString().trim();
  return sock;
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, ms = 15000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function capture(sock: string): Promise<string[]> {
  return toLines(await tmux(sock, 'capture-pane', '-p', '-t', 't')).map((l) => l.toString('utf8'));
}

async function cursorOf(sock: string): Promise<{ x: number; y: number }> {
  const [x, y] = (await tmux(sock, 'display', '-p', '-t', 't', '#{cursor_x} #{cursor_y}')).toString().trim().split(' ');
  return { x: Number(x), y: Number(y) };
}

const trimRows = (rows: string[]): string[] => rows.map((r) => r.trimEnd());

afterAll(async () => {
  for (const { sock, path } of servers) {
    try {
      await tmux(sock, 'kill-server');
    } catch {
      /* already gone */
    }
    // tmux 3.3a leaves the socket file behind after kill-server.
    if (path.includes('nerdr-test-')) await rm(path, { force: true });
  }
});

describe.skipIf(!tmuxOk)('mirror against live tmux', () => {
  let client: MiniControlClient | undefined;
  afterAll(async () => {
    client?.close();
    if (client) await Promise.race([client.exited, new Promise((r) => setTimeout(r, 2000))]);
  });

  it('snapshot during the alternate screen, then stream: identical to capture-pane at the end', async () => {
    const sock = await startServer('stream', 7);
    const pane = (await tmux(sock, 'display', '-p', '-t', 't', '#{pane_id}')).toString().trim();
    const c = (client = new MiniControlClient(tmuxArgs(sock), env));

    // Join while the producer is busy inside its alternate-screen phase.
    await waitFor('ALT-PHASE', async () => ((await capture(sock)).some((l) => l.includes('ALT-PHASE')) ? true : undefined));

    const mirror = new Mirror(80, 24, { scrollback: 0 });
    let phase: 'drop' | 'queue' | 'live' = 'drop';
    let queued: Buffer[] = [];
    let dropped = 0;
    let streamed = 0;
    let resnapshots = 0;
    let pendingSnapshot: Promise<void> | undefined;

    const snapshot = async (): Promise<void> => {
      phase = 'drop';
      const blocks = await c.command(buildSnapshotCommand(pane), 5);
      expect(blocks.every((b) => b.ok)).toBe(true);
      const seed = buildSeed(blocks.map((b) => b.lines));
      expect([seed.cols, seed.rows]).toEqual([120, 40]);
      mirror.seed(seed);
      const q = queued;
      queued = [];
      phase = 'live';
      for (const data of q) feed(data);
    };
    const feed = (data: Buffer): void => {
      streamed += data.length;
      if (mirror.write(data) && !pendingSnapshot) {
        resnapshots++;
        pendingSnapshot = snapshot().finally(() => (pendingSnapshot = undefined));
      }
    };
    c.onBlockStart = () => {
      if (phase === 'drop') phase = 'queue';
    };
    c.onOutput = (p, data) => {
      if (p !== pane) return;
      if (phase === 'drop') dropped++;
      else if (phase === 'queue') queued.push(data);
      else feed(data);
    };

    await snapshot();
    await mirror.flushed();
    expect(mirror.snapshot().altScreen).toBe(true);

    // The producer leaves the alternate screen, prints a few lines and "DONE", then idles.
    await waitFor('DONE in tmux', async () => ((await capture(sock)).some((l) => l.startsWith('DONE')) ? true : undefined));
    await waitFor('DONE in the mirror', async () => {
      await pendingSnapshot;
      await mirror.flushed();
      return mirror.snapshot().rows.some((r) => r.startsWith('DONE')) ? true : undefined;
    });
    // tmux is quiet now; make sure nothing is still in flight on the control channel.
    await c.command('display -p sync');
    await mirror.flushed();

    const want = trimRows(await capture(sock));
    const snap = mirror.snapshot();
    expect(want).toHaveLength(40);
    expect(trimRows(snap.rows)).toEqual(want);
    expect(snap.altScreen).toBe(false);
    expect(snap.cursor).toEqual(await cursorOf(sock));
    expect(streamed).toBeGreaterThan(1000);
    // Useful when it fails: how much was dropped before the reply and how many re-snapshots.
    console.log(`mirror live: dropped ${dropped} %output lines before the reply, streamed ${streamed} bytes, resnapshots ${resnapshots}`);
  });

  it('one-shot seed of a quiet pane in the alternate screen with a scroll region and hidden cursor', async () => {
    const sock = await startServer('static-alt', 3);
    await waitFor('READY', async () => {
      const d = (await tmux(sock, 'display', '-p', '-t', 't', '#{alternate_on} #{cursor_flag} #{cursor_x} #{cursor_y}')).toString().trim();
      const pending = (await tmux(sock, 'capture-pane', '-p', '-P', '-C', '-t', 't')).toString().trim();
      return d === '1 0 6 11' && pending === '\\033[3' ? true : undefined;
    });
    const t = ['-t', 't'];
    const blocks = [
      toLines(await tmux(sock, 'display', '-p', ...t, SNAPSHOT_DISPLAY_FORMAT)),
      toLines(await tmux(sock, 'capture-pane', '-p', '-e', '-N', ...t)),
      toLines(await tmux(sock, 'capture-pane', '-p', '-e', '-N', '-a', '-q', ...t)),
      toLines(await tmux(sock, 'capture-pane', '-p', '-P', '-C', ...t)),
    ];
    const seed = buildSeed(blocks);
    expect(seed.state).toMatchObject({ alternateOn: true, scrollUpper: 2, scrollLower: 29, cursorVisible: false });
    expect(seed.partial).toEqual(Buffer.from('\x1b[3'));
    const m = new Mirror(10, 10, { scrollback: 0 });
    try {
      m.seed(seed);
      await m.flushed();
      let snap = m.snapshot();
      expect(trimRows(snap.rows)).toEqual(trimRows(await capture(sock)));
      expect(snap.cursor).toEqual({ x: 6, y: 11 });
      expect(snap.altScreen).toBe(true);
      expect(m.renderAnsi()).toContain('\x1b[0;44mstatus 中文');

      // The rest of the half-received sequence: tmux and the mirror must both complete it.
      const pid = Number((await tmux(sock, 'display', '-p', ...t, '#{pane_pid}')).toString().trim());
      process.kill(pid, 'SIGUSR1');
      await waitFor('G', async () => ((await capture(sock))[11]?.includes('G') ? true : undefined));
      m.write(Buffer.from('2mG'));
      await m.flushed();
      expect(trimRows(m.snapshot().rows)).toEqual(trimRows(await capture(sock)));
      expect(m.renderAnsi().split('\n')[11]).toContain('\x1b[0;32mG');

      // Leave the alternate screen in tmux (the producer does it on SIGUSR2) and feed the
      // mirror the same bytes: the saved main screen and cursor must come back identically.
      process.kill(pid, 'SIGUSR2');
      await waitFor('main screen', async () =>
        (await tmux(sock, 'display', '-p', ...t, '#{alternate_on}')).toString().trim() === '0' ? true : undefined,
      );
      m.write(Buffer.from('\x1b[r\x1b[?1049l'));
      await m.flushed();
      snap = m.snapshot();
      expect(snap.altScreen).toBe(false);
      expect(trimRows(snap.rows)).toEqual(trimRows(await capture(sock)));
      expect(snap.cursor).toEqual(await cursorOf(sock));
    } finally {
      m.dispose();
    }
  });
});
