// A supervisor that died but was not reaped yet (a zombie) is dead: its lock is stale.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tryLock as acquireLock, exitedOnProc, pidAlive, processStartTicks, readLockHolder, readLockPid, sameProcessAlive } from '../../../src/store/lock.js';

const onLinux = process.platform === 'linux';

async function until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!onLinux)('pidAlive and zombies', () => {
  const cleanup: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanup.splice(0)) c();
  });

  /**
   * A child of a process that never reaps it. The child waits on a pipe of ours until the shell
   * has become `sleep 30`, then exits and stays a zombie. (A child that exited on its own could
   * end before the exec, and the shell reaped it: CI on a loaded machine saw no zombie come.)
   */
  async function zombie(): Promise<number> {
    const parent = spawn('/bin/sh', ['-c', '(read x <&3) & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore', 'pipe'] });
    cleanup.push(() => parent.kill('SIGKILL'));
    const pid = await new Promise<number>((resolve) => parent.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
    const comm = (p: number): string => {
      try {
        return readFileSync(`/proc/${p}/comm`, 'utf8').trim();
      } catch {
        return '';
      }
    };
    await until(() => comm(parent.pid!) === 'sleep', 'the shell to become sleep 30');
    (parent.stdio[3] as NodeJS.WritableStream).end();
    await until(() => {
      try {
        return / Z /.test(readFileSync(`/proc/${pid}/stat`, 'latin1').slice(readFileSync(`/proc/${pid}/stat`, 'latin1').lastIndexOf(')')));
      } catch {
        return false;
      }
    }, 'the child to be a zombie');
    return pid;
  }

  it('a zombie is not alive, though kill(pid, 0) answers', async () => {
    const pid = await zombie();
    expect(() => process.kill(pid, 0)).not.toThrow();
    expect(exitedOnProc(pid)).toBe(true);
    expect(pidAlive(pid)).toBe(false);
    expect(pidAlive(process.pid)).toBe(true);
  });

  it('a lock held by a zombie is taken over at once', async () => {
    const pid = await zombie();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-lock-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'supervisor.lock');
    writeFileSync(file, `${pid}\n`);
    const lock = acquireLock(file);
    expect(lock.ok).toBe(true);
    expect(readLockPid(file)).toBe(process.pid);
  });
});

// A pid is handed out again once its process died: on a busy machine within minutes (CI wrapped
// pid_max 32768 every 2 minutes). A lock left by a supervisor killed with -9 can so name a live
// process that is not its holder: its start time says so.
describe.skipIf(!onLinux)('a lock whose pid names another process now', () => {
  let dir = '';
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const lockFile = (content: string): string => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-lock-'));
    const file = path.join(dir, 'supervisor.lock');
    writeFileSync(file, content);
    return file;
  };

  it('names its holder with its start, and a process started then still holds it', () => {
    const start = processStartTicks(process.pid);
    expect(start).toMatch(/^\d+$/);
    const file = lockFile('');
    rmSync(file);
    const held = acquireLock(file);
    expect(held.ok).toBe(true);
    expect(readFileSync(file, 'utf8').trim().split(' ')).toEqual([String(process.pid), expect.stringMatching(/^[0-9a-f]{16}$/), expect.stringMatching(/^\d+$/), start]);
    expect(readLockHolder(file)).toBe(process.pid);
    // a second taker sees it held
    expect(acquireLock(file)).toEqual({ ok: false, owner: process.pid });
  });

  it('a live pid with another start is no holder: none is named for a signal, and the lock is taken over', () => {
    const start = Number(processStartTicks(process.pid));
    const file = lockFile(`${process.pid} 0123456789abcdef ${Date.now() - 60_000} ${start - 1}\n`);
    expect(pidAlive(process.pid)).toBe(true);
    expect(sameProcessAlive(process.pid, String(start - 1))).toBe(false);
    expect(readLockHolder(file)).toBeNull();
    expect(acquireLock(file).ok).toBe(true);
    expect(readLockHolder(file)).toBe(process.pid);
  });

  it('a lock of the older form (pid, token, time) goes by its pid alone', () => {
    const file = lockFile(`${process.pid} 0123456789abcdef ${Date.now()}\n`);
    expect(readLockHolder(file)).toBe(process.pid);
    expect(acquireLock(file)).toEqual({ ok: false, owner: process.pid });
    expect(sameProcessAlive(process.pid, undefined)).toBe(true);
    expect(sameProcessAlive(process.pid, '-')).toBe(true);
  });
});
