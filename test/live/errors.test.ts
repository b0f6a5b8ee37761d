// Errors as users meet them (issue 25; docs/errors.md): a message and a fix, no stack, the code's
// exit status. A supervisor that cannot start is said at once, with its reason and a fix, not
// after a 10 s wait for "did not start": the start record's reason (src/supervisor/holder.ts
// startFailure), shown by the CLI's ensureSupervisor (src/cli/context.ts). The statuses other live
// tests do not reach are here: 3 from `supervisor status`, 6 from `events --no-start` (124 and 3
// of `wait`: messages-wait.test.ts; 5: events.test.ts; 2: hooks.test.ts, selftest.test.ts).
import { rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverFiles } from '../../src/paths.js';
import { startLiveEnv, tmuxAvailable, type LiveEnv } from './helpers/env.js';

describe.skipIf(!tmuxAvailable)('a supervisor that cannot start', () => {
  let env: LiveEnv;

  beforeAll(async () => {
    env = await startLiveEnv();
  });

  afterAll(async () => {
    await env?.cleanup();
  });

  it('supervisor status with none running: exit 3, no error', async () => {
    const r = await env.nerdr('supervisor', 'status');
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^not running/);
    expect(r.stderr).toBe('');
  }, 40_000);

  it('events --no-start with no tmux server: exit 6, the message and its fix', async () => {
    const r = await env.nerdrWith(['-L', `${env.server}-none`, 'events', '--no-start'], { noServer: true });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/^nerdr: no tmux server is running at .*\n {2}fix: nothing was started \(--no-start\)\n$/);
  }, 40_000);

  it('an option value nerdr cannot use: exit 1, the message and a fix', async () => {
    const r = await env.nerdr('read', 'x', '--lines', 'many');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('nerdr: --lines takes a positive whole number, not "many"\n  fix: e.g. --lines 20\n');
  }, 40_000);

  it('says why at once, with the fix, and exits 1', async () => {
    // a plain file where the socket goes: the CLI finds no supervisor there and starts one, which
    // refuses to serve (src/supervisor/socket/socket-dir.ts) and records why
    const socket = serverFiles(env.socketPath, env.env).socket;
    writeFileSync(socket, 'not a socket');
    try {
      const t0 = Date.now();
      const r = await env.nerdr('supervisor', 'start');
      const took = Date.now() - t0;
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^nerdr: the supervisor did not start: start failed: refusing to serve: .* exists and is not a socket\n/);
      expect(r.stderr).toMatch(/\n {2}fix: move that file away; its log: .*core-.*\.log/);
      expect(r.stderr).not.toMatch(/\bat .*\.js:\d+/); // no stack
      expect(took).toBeLessThan(8000);
    } finally {
      await env.nerdr('supervisor', 'stop');
      rmSync(socket, { force: true });
    }
  }, 40_000);

  it('an unknown agent on a running supervisor: the code and its fix from the table', async () => {
    const r = await env.nerdr('read', 'nosuch');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^nerdr: .*nosuch.*\n {2}fix: /);
  }, 40_000);
});
