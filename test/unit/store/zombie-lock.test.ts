// A supervisor that died but was not reaped yet (a zombie) is dead: its lock is stale.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tryLock as acquireLock, exitedOnProc, pidAlive, readLockPid } from '../../../src/store/lock.js';

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
