// A tmux server killed and another started at once at the same socket (`tmux kill-server`, then a
// new session, as a script or a restore does): the old server's supervisor must not take up the
// new one in its own supervisor's place. It stops; the new server gets its own (held by its tmux).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidAlive, run, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';

describe.skipIf(!tmuxAvailable)('a new tmux server at the same socket', () => {
  let env: LiveEnv;
  beforeAll(async () => {
    env = await startLiveEnv();
  });
  afterAll(async () => {
    await env?.cleanup();
  });

  it("the old server's supervisor stops; the next command's supervisor watches the new server", async () => {
    const made = await env.nerdr('new', 'demo', '-d', '--name', 'before', '--', '--auto', '0');
    expect(made.code, made.stderr).toBe(0);
    const old = (await env.supervisorPid())!;
    expect(old).toBeGreaterThan(0);
    // the old supervisor is held (SIGSTOP) until the new server is up: when it looks, a server runs
    // at the socket, as when a script kills the server and starts a session in the same breath
    process.kill(old, 'SIGSTOP');
    // (a client that reaches the server while it is still going down is told "server exited
    // unexpectedly": the next one starts a new server)
    const r = await run('sh', ['-c', `tmux -L "$1" kill-server; for i in 1 2 3 4 5 6 7 8 9 10; do tmux -L "$1" -f /dev/null new-session -d -s user -x 120 -y 30 "sleep 600" 2>/dev/null && exit 0; done; exit 1`, 'sh', env.server], { env: env.env });
    expect(r.code, r.stderr).toBe(0);
    process.kill(old, 'SIGCONT');
    await waitFor(() => !pidAlive(old), { what: "the old server's supervisor to stop", timeoutMs: 5000 });
    const after = await env.nerdr('new', 'demo', '-d', '--name', 'after', '--', '--auto', '0');
    expect(after.code, after.stderr).toBe(0);
    const info = JSON.parse((await env.nerdr('supervisor', 'status', '--json')).stdout) as { pid: number; serverPid: number };
    expect(info.pid).not.toBe(old);
    const serverPid = Number((await env.tmuxOk('display', '-p', '#{pid}')).trim());
    expect(info.serverPid).toBe(serverPid);
    expect((await env.lsJson()).map((x) => x.name)).toEqual(['after']);
  });
});
