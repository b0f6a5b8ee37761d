// nerdr inside herdr: the supervisor was started from a shell in a herdr pane (HERDR_ENV,
// HERDR_PANE_ID, HERDR_BIN_PATH), so it reports its most urgent agent to that pane with herdr's
// CLI. herdr here is a stand-in on HERDR_BIN_PATH that records each call.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';

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
});
