// `nerdr doctor` reports git: missing, or older than worktrees need (2.17), each with its fix.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveEnv, tmuxAvailable, type LiveEnv } from './helpers/env.js';

interface Check { name: string; ok: boolean; detail: string; fix?: string }

describe.skipIf(!tmuxAvailable)('nerdr doctor and git', () => {
  let env: LiveEnv;
  let bin: string;
  beforeAll(async () => {
    env = await startLiveEnv();
    bin = mkdtempSync(path.join(os.tmpdir(), 'nerdr-doctor-git-'));
    // a PATH with tmux and nothing else
    symlinkSync(execFileSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).trim(), path.join(bin, 'tmux'));
  });
  afterAll(async () => {
    await env?.cleanup();
    rmSync(bin, { recursive: true, force: true });
  });

  const gitCheck = async (): Promise<{ code: number | null; check: Check }> => {
    const r = await env.nerdrWith(['doctor', '--json'], { env: { PATH: bin } });
    const check = (JSON.parse(r.stdout) as Check[]).find((c) => c.name === 'git');
    expect(check, r.stdout + r.stderr).toBeDefined();
    return { code: r.code, check: check! };
  };

  it('the installed git passes', async () => {
    const r = await env.nerdr('doctor', '--json');
    const check = (JSON.parse(r.stdout) as Check[]).find((c) => c.name === 'git')!;
    expect(check.ok).toBe(true);
    expect(check.detail).toMatch(/^\d+\.\d+\.\d+ \(worktrees need 2\.17 or newer\)$/);
  });

  it('a missing git fails, with how to install it', async () => {
    const { code, check } = await gitCheck();
    expect(code).toBe(1);
    expect(check).toMatchObject({ ok: false, detail: 'git is not installed (no `git` on PATH)' });
    expect(check.fix).toMatch(/install git 2\.17 or newer/);
  });

  it('a git older than 2.17 fails, naming both versions', async () => {
    writeFileSync(path.join(bin, 'git'), '#!/bin/sh\necho "git version 2.16.4"\n');
    chmodSync(path.join(bin, 'git'), 0o755);
    const { code, check } = await gitCheck();
    expect(code).toBe(1);
    expect(check).toMatchObject({ ok: false, detail: "git 2.16.4 found; nerdr's worktrees need git 2.17 or newer" });
    expect(check.fix).toMatch(/upgrade git/);
    rmSync(path.join(bin, 'git'));
  });
});
