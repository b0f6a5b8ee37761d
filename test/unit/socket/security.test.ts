import { chmod, lstat, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSocketServer, SocketSetupError } from '../../../src/supervisor/socket/index.js';
import { call, req } from './helpers.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'nerdr-sec-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const opts = (path: string) => ({ path, authenticate: () => null });

describe('socket folder and file', () => {
  it('creates a missing folder 0700 and the socket 0600', async () => {
    const path = join(base, 'a', 'b', 'nerdr.sock');
    const s = await createSocketServer(opts(path));
    try {
      expect((await stat(join(base, 'a', 'b'))).mode & 0o777).toBe(0o700);
      expect((await lstat(path)).mode & 0o777).toBe(0o600);
      expect((await call(path, req('ping', {}))).result).toMatchObject({ type: 'pong' });
    } finally {
      await s.close();
    }
    await expect(lstat(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it.each([0o755, 0o750, 0o701, 0o770, 0o707])('refuses to serve from a folder with mode %o', async (mode) => {
    const dir = join(base, 'open');
    await mkdir(dir);
    await chmod(dir, mode);
    const e = await createSocketServer(opts(join(dir, 'nerdr.sock'))).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SocketSetupError);
    expect((e as Error).message).toMatch(/open to group\/others/);
    expect((e as SocketSetupError).fix).toMatch(/chmod 700/);
    await expect(lstat(join(dir, 'nerdr.sock'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a folder owned by someone else', async () => {
    if (process.getuid?.() !== 0) {
      // Without root we cannot chown; a root-owned 0700 folder stands in (e.g. /root may not be listable).
      const e = await createSocketServer(opts('/proc/1/nerdr.sock')).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(Error);
      return;
    }
    const dir = join(base, 'theirs');
    await mkdir(dir, { mode: 0o700 });
    const { chown } = await import('node:fs/promises');
    await chown(dir, 12345, 12345);
    const e = await createSocketServer(opts(join(dir, 'nerdr.sock'))).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SocketSetupError);
    expect((e as Error).message).toMatch(/belongs to uid 12345/);
  });

  it('refuses a symlinked folder', async () => {
    const real = join(base, 'real');
    await mkdir(real, { mode: 0o700 });
    const { symlink } = await import('node:fs/promises');
    await symlink(real, join(base, 'link'));
    const e = await createSocketServer(opts(join(base, 'link', 'nerdr.sock'))).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SocketSetupError);
  });

  it('removes a stale socket file that nothing answers on', async () => {
    const dir = join(base, 's');
    await mkdir(dir, { mode: 0o700 });
    const path = join(dir, 'nerdr.sock');
    // Leave a dead socket file behind: a process that listens and is killed never unlinks it.
    spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    expect((await lstat(path)).isSocket()).toBe(true);
    const s = await createSocketServer(opts(path));
    try {
      expect((await call(path, req('ping', {}))).result).toMatchObject({ type: 'pong' });
    } finally {
      await s.close();
    }
  });

  it('refuses to start when another server answers on the path', async () => {
    const dir = join(base, 'live');
    await mkdir(dir, { mode: 0o700 });
    const path = join(dir, 'nerdr.sock');
    const first = await createSocketServer(opts(path));
    try {
      const e = await createSocketServer(opts(path)).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(SocketSetupError);
      expect((e as Error).message).toMatch(/already answers/);
      expect((await call(path, req('ping', {}))).result).toMatchObject({ type: 'pong' });
    } finally {
      await first.close();
    }
  });

  it('refuses to replace a file that is not a socket', async () => {
    const dir = join(base, 'f');
    await mkdir(dir, { mode: 0o700 });
    const path = join(dir, 'nerdr.sock');
    await writeFile(path, 'precious');
    const e = await createSocketServer(opts(path)).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SocketSetupError);
    expect((await stat(path)).isFile()).toBe(true);
  });
});
