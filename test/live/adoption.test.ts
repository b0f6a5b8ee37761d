// Persistence, part 1 (adoption): a supervisor killed with -9 in the middle of a flood of
// output is replaced by the next nerdr command, which finds every window again with the same
// states and conversation ids; exactly one nerdr control client remains, and kill-server ends.

import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, pidAlive, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';
import { SHARED_FIXTURES } from '../shared-fixtures.js';

const FAKE = path.join(REPO_ROOT, 'test', 'live', 'helpers', 'fake-agent.js');

describe.skipIf(!tmuxAvailable)('adoption after kill -9 under a flood', () => {
  let env: LiveEnv;
  let root = '';

  beforeAll(async () => {
    root = path.join(process.env.TMPDIR ?? '/tmp', `nerdr-adopt-${process.pid}-${Date.now()}`);
    const bin = path.join(root, 'bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(FAKE, path.join(bin, 'claude'));
    env = await startLiveEnv({ env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` } });
    await env.tmuxOk('set-environment', '-g', 'FAKE_AGENT_SCREEN', path.join(SHARED_FIXTURES, 'screens', 'claude', '04-permission-bash.ansi.txt'));
  }, 60_000);

  afterAll(async () => {
    await env?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('every window adopted with the same states and ids, one control client, kill-server completes', async () => {
    const c = await env.nerdrWith(['new', 'claude', '-d', '--name', 'asks'], { timeoutMs: 60_000 });
    expect(c.code, c.stderr).toBe(0);
    const d = await env.nerdr('new', 'demo', '-d', '--name', 'calm');
    expect(d.code, d.stderr).toBe(0);
    const f = await env.nerdr('new', '-d', '--name', 'flood', '--cmd', 'exec yes nerdr-flood');
    expect(f.code, f.stderr).toBe(0);

    const settled = async () => {
      const rows = await env.lsJson();
      const asks = rows.find((r) => r.name === 'asks');
      const calm = rows.find((r) => r.name === 'calm');
      return asks?.state === 'blocked' && calm?.state === 'idle' && rows.some((r) => r.name === 'flood') ? rows : undefined;
    };
    const before = await waitFor(settled, { timeoutMs: 30_000, what: 'asks blocked, calm idle, flood listed' });
    const asksBefore = before.find((r) => r.name === 'asks')!;
    expect(asksBefore.conversationId).toMatch(/^[0-9a-f-]{36}$/);

    const sup = await env.supervisorPid();
    expect(sup).not.toBeNull();
    process.kill(sup!, 'SIGKILL');
    await waitFor(() => !pidAlive(sup!), { what: 'the supervisor gone' });

    // the next command starts a new supervisor, which adopts everything
    const after = await waitFor(settled, { timeoutMs: 30_000, what: 'the same states after adoption' });
    const asksAfter = after.find((r) => r.name === 'asks')!;
    expect(asksAfter.window).toBe(asksBefore.window);
    expect(asksAfter.conversationId).toBe(asksBefore.conversationId);
    expect(asksAfter.conversationFrom).toBe('launch');
    expect(after.map((r) => `${r.name} ${r.window} ${r.pane}`).sort()).toEqual(before.map((r) => `${r.name} ${r.window} ${r.pane}`).sort());
    const newSup = await env.supervisorPid();
    expect(newSup).not.toBe(sup);

    // exactly one nerdr control client on _nerdr (and its output keeper, which takes no output):
    // the orphans of the killed one were ended
    await waitFor(
      async () => {
        const clients = (await env.tmuxOk('list-clients', '-F', '#{client_control_mode} #{session_name} #{?#{m:*no-output*,#{client_flags}},keeper,reader}')).split('\n');
        return clients.filter((l) => l === '1 _nerdr reader').length === 1 && clients.filter((l) => l === '1 _nerdr keeper').length <= 1;
      },
      { timeoutMs: 15_000, what: 'one control client on _nerdr' },
    );

    // and the server still ends cleanly (a stale client would wedge kill-server on tmux 3.3)
    const k = await env.tmux('kill-server');
    expect(k.code).toBe(0);
    await waitFor(async () => (await env.tmux('list-sessions')).code !== 0, { timeoutMs: 15_000, what: 'the tmux server gone' });
    if (newSup) await waitFor(() => !pidAlive(newSup), { timeoutMs: 15_000, what: 'the new supervisor gone with its server' });
  }, 120_000);
});
