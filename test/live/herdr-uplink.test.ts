// nerdr inside herdr: the supervisor was started from a shell in a herdr pane (HERDR_ENV,
// HERDR_PANE_ID, HERDR_BIN_PATH), so it reports its most urgent agent to that pane with herdr's
// CLI. herdr here is a stand-in on HERDR_BIN_PATH that records each call.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { startLiveEnv, tmuxAtLeast, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';

describe.skipIf(!tmuxAvailable)('nerdr inside herdr', () => {
  let env: LiveEnv;
  let dir: string;
  let calls: string;
  const reports = (): { state: string; message: string; pane: string }[] =>
    existsSync(calls)
      ? readFileSync(calls, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as string[])
          .map((a) => ({ pane: a[2]!, state: a[a.indexOf('--state') + 1]!, message: a[a.indexOf('--message') + 1]! }))
      : [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-herdr-'));
    calls = path.join(dir, 'calls.jsonl');
    const herdr = path.join(dir, 'herdr');
    writeFileSync(herdr, `#!${process.execPath}\nrequire('node:fs').appendFileSync(${JSON.stringify(calls)}, JSON.stringify(process.argv.slice(2)) + '\\n');\n`);
    chmodSync(herdr, 0o755);
    env = await startLiveEnv({ env: { HERDR_ENV: '1', HERDR_PANE_ID: 'herdr-pane-7', HERDR_BIN_PATH: herdr } });
  });
  afterAll(async () => {
    await env?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('herdr hears blocked while an agent waits for the user, working while one works, then done (as idle) naming it', async () => {
    const r = await env.nerdr('new', 'demo', '-d', '--name', 'asker', '--', '--auto', '0', '--work', '1', '--ask');
    expect(r.code, r.stderr).toBe(0);
    await waitFor(async () => (await env.lsJson()).find((x) => x.name === 'asker' && x.state === 'idle'), { what: 'the agent to be idle', timeoutMs: 20_000 });
    await waitFor(() => reports().some((x) => x.state === 'idle'), { what: 'an idle report' });
    expect(reports()[0]!.pane).toBe('herdr-pane-7');
    expect((await env.nerdr('send', 'asker', 'do the thing')).code).toBe(0);
    await waitFor(() => reports().some((x) => x.state === 'blocked' && x.message === 'asker: needs you'), { what: 'a blocked report', timeoutMs: 20_000 });
    await env.tmuxOk('send-keys', '-t', r.stdout.trim(), 'Enter');
    await waitFor(() => reports().some((x) => x.state === 'idle' && x.message === 'asker: done'), { what: 'the done report', timeoutMs: 20_000 });
    const states = reports().map((x) => x.state);
    expect(states.indexOf('blocked')).toBeLessThan(states.lastIndexOf('idle'));
    expect(states).toContain('working');
  });

  it("the agent windows' own herdr variables point at nerdr, not at herdr", async () => {
    const r = await env.nerdr('new', '-d', '--name', 'plain', '--cmd', 'exec sleep 300');
    const pid = (await env.tmuxOk('display', '-p', '-t', r.stdout.trim(), '#{pane_pid}')).trim();
    const vars = Object.fromEntries(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    expect(vars.HERDR_BIN_PATH).toMatch(/bin\/nerdr\.js$/);
    expect(vars.HERDR_PANE_ID).not.toBe('herdr-pane-7');
    // a person at a shell in a herdr pane (HERDR_PANE_ID is herdr's) is no agent window of nerdr's
    const stop = await env.nerdr('stop', 'plain');
    expect(stop.code, stop.stderr).toBe(0);
  });

  // client-focus-in came with tmux 3.3; on 3.2a the supervisor logs that it cannot switch
  it.skipIf(!tmuxAtLeast(3, 3))('when herdr focuses the pane, the client goes to the agent that needs the user, once per new urgent event', async () => {
    await env.tmuxOk('set-option', '-g', 'focus-events', 'on');
    const r = await env.nerdr('new', 'demo', '-d', '--name', 'needy', '--', '--auto', '0', '--work', '1', '--ask');
    const win = r.stdout.trim();
    await waitFor(async () => (await env.lsJson()).find((x) => x.name === 'needy' && x.state === 'idle'), { what: 'the agent to be idle', timeoutMs: 20_000 });
    expect((await env.nerdr('send', 'needy', 'go')).code).toBe(0);
    await waitFor(async () => (await env.lsJson()).find((x) => x.name === 'needy' && x.state === 'blocked'), { what: 'the agent to be blocked', timeoutMs: 20_000 });
    // a person's client, in a terminal that reports focus (as herdr's pane does)
    const term = spawn('script', ['-qfc', `tmux -L ${env.server} attach -t user`, '/dev/null'], { env: { ...env.env, TERM: 'xterm-256color' }, stdio: ['pipe', 'ignore', 'ignore'] });
    env.track(term.pid!);
    const client = await waitFor(async () => (await env.tmuxOk('list-clients', '-F', '#{client_name} #{client_control_mode}')).split('\n').find((l) => l.endsWith(' 0'))?.split(' ')[0], { what: 'the client to attach' });
    await env.tmuxOk('select-window', '-t', 'user:0');
    const shown = async () => (await env.tmuxOk('display', '-p', '-c', client, '#{window_id}')).trim();
    expect(await shown()).not.toBe(win);
    term.stdin!.write('\x1b[I');
    await waitFor(async () => (await shown()) === win, { what: 'the client to be switched to the blocked agent' });
    // focused again with nothing new: the client stays where the user put it
    await env.tmuxOk('select-window', '-t', 'user:0');
    const before = Number((await env.tmuxOk('show', '-gv', '@nerdr_focus_n')).trim());
    term.stdin!.write('\x1b[O\x1b[I');
    await waitFor(async () => Number((await env.tmuxOk('show', '-gv', '@nerdr_focus_n')).trim()) > before, { what: 'the second focus to be counted' });
    // the supervisor takes the second focus and leaves the client where the user put it
    const logFile = () => env.supervisorLog();
    await waitFor(() => /inside herdr: focus of .*; staying: needy \(blocked\) was shown already/.test(logFile()), { what: 'the supervisor to take the second focus' });
    expect(await shown()).not.toBe(win);
    term.kill();
  });
});
