// Problems with nerdr's own state folder reach the user at once, with the fix: not a 10 s wait
// for "the supervisor did not start", not "nothing saved".
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionBase } from '../../src/store/sessions.js';
import { startLiveEnv, tmuxAvailable, type LiveEnv } from './helpers/env.js';

describe.skipIf(!tmuxAvailable)('state folder problems', () => {
  let env: LiveEnv;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'nerdr-statedir-'));
    env = await startLiveEnv();
  });

  afterAll(async () => {
    await env?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('a state folder that is a symbolic link: new fails at once, naming the real folder', async () => {
    const real = path.join(root, 'real');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, path.join(root, 'link'));
    const r = await env.nerdrWith(['new', '-d', '--cmd', 'sleep 100'], { env: { NERDR_STATE_DIR: path.join(root, 'link') } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/state folder .*link is a symbolic link/);
    expect(r.stderr).toContain(`NERDR_STATE_DIR=${real}`);
  });

  it('an unreadable saved session: restore names it and fails instead of "nothing saved"', async () => {
    const dir = path.join(env.stateDir, 'sessions');
    mkdirSync(path.join(dir, `${sessionBase(env.socketPath, 'work')}.json`), { recursive: true });
    const r = await env.nerdr('restore');
    expect(r.code).toBe(1);
    expect(r.stdout).not.toMatch(/nothing saved/);
    expect(r.stderr).toMatch(/cannot be read \(EISDIR\)/);
    expect(r.stderr).toMatch(/nothing restored/);
  });
});
