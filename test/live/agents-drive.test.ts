// An agent window that drives other windows through the real CLI, from inside its pane: it
// starts a helper (which records its parent), may stop and type into that helper, and is
// refused for a window a person started, unless `[agents] control = "all"`. The "agent" is a
// small Node script run as the window's program: it has the window's NERDR_TAB, as an agent's
// tool calls do, and writes what each command answered to a file.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVER, driverCmd } from './helpers/driver.js';
import { NERDR_BIN, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';


interface Step {
  args: string[];
  code: number;
  stdout: string;
  stderr: string;
}

describe.skipIf(!tmuxAvailable)('an agent that drives agents', () => {
  let env: LiveEnv;
  let dir: string;
  let driver: string;

  beforeAll(async () => {
    env = await startLiveEnv();
    dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-drive-'));
    driver = path.join(dir, 'driver.cjs');
    writeFileSync(driver, DRIVER);
  });
  afterAll(async () => {
    await env?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Starts a window (as a person) whose program runs the steps from inside it; returns what each answered. */
  async function agentRuns(name: string, steps: string[][]): Promise<Step[]> {
    const out = path.join(dir, `${name}.json`);
    const r = await env.nerdr('new', '-d', '--name', name, '--cmd', driverCmd(driver, out, steps));
    expect(r.code, r.stderr).toBe(0);
    await waitFor(() => existsSync(out), { what: `${name}'s commands to finish`, timeoutMs: 30_000 });
    return JSON.parse(readFileSync(out, 'utf8')) as Step[];
  }

  it('starts a helper that records its parent, stops it, and is refused for a window a person started', async () => {
    const mine = await env.nerdr('new', '-d', '--name', 'persons', '--cmd', 'exec sleep 300');
    expect(mine.code, mine.stderr).toBe(0);
    const [made, sendOther, stopOther, sendHelper, listed, stopHelper] = await agentRuns('boss', [
      ['new', '-d', '--name', 'helper', '--cmd', 'exec sleep 300'],
      ['send', 'persons', 'not yours'],
      ['stop', 'persons'],
      ['send', 'helper', 'yours'],
      ['ls', '--json'],
      ['stop', 'helper'],
    ]);
    expect(made!.code, made!.stderr).toBe(0);
    for (const s of [sendOther!, stopOther!]) {
      expect(s.code, s.stderr).toBe(1);
      expect(s.stderr).toMatch(/boss \(@\d+\) is an agent window: it may (send to|stop) only the windows it started and theirs, and persons \(@\d+\) is not one of them/);
      expect(s.stderr).toMatch(/\[agents\] control = "all"/);
    }
    expect(sendHelper!.code, sendHelper!.stderr).toBe(0);
    // reading is open to agents: ls from inside boss lists every window, and the helper's parent
    const rows = JSON.parse(listed!.stdout) as { name: string; id: string; parent: string | null }[];
    const boss = rows.find((x) => x.name === 'boss')!;
    expect(rows.find((x) => x.name === 'helper')!.parent).toBe(boss.id);
    expect(boss.parent).toBeNull();
    expect(rows.find((x) => x.name === 'persons')!.parent).toBeNull();
    expect(stopHelper!.code, stopHelper!.stderr).toBe(0);
    await waitFor(async () => !(await env.lsJson()).some((x) => x.name === 'helper'), { what: 'the helper to be gone' });
    expect((await env.lsJson()).some((x) => x.name === 'persons')).toBe(true);
  });

  it('the loop, watched through nerdr events: start a helper agent, send it work with --wait and get the receipts through to done', async () => {
    const events = spawn(process.execPath, [NERDR_BIN, '-L', env.server, 'events', '--json'], { env: env.env, stdio: ['ignore', 'pipe', 'ignore'] });
    env.track(events.pid!);
    let seen = '';
    events.stdout!.on('data', (d: Buffer) => void (seen += d.toString('utf8')));
    await waitFor(() => seen.length > 0, { what: 'the event stream to start' });
    const [made, ready, sent] = await agentRuns('conductor', [
      ['new', 'demo', '-d', '--name', 'worker', '--', '--auto', '0', '--work', '1'],
      ['wait', 'worker', '--until', 'idle', '--timeout', '30'],
      ['send', 'worker', 'write the tests', '--wait', '--json', '--timeout', '60'],
    ]);
    expect(made!.code, made!.stderr).toBe(0);
    expect(ready!.code, ready!.stderr).toBe(0);
    expect(sent!.code, sent!.stderr + sent!.stdout).toBe(0);
    const steps = sent!.stdout.trim().split('\n').map((l) => JSON.parse(l) as { step: string; state?: string; exit?: number; id: string });
    expect(steps.map((x) => x.step)).toEqual(expect.arrayContaining(['queued', 'pasted', 'started']));
    expect(steps.indexOf(steps.find((x) => x.step === 'pasted')!)).toBeLessThan(steps.indexOf(steps.find((x) => x.step === 'started')!));
    expect(steps.at(-1)).toMatchObject({ step: 'end', exit: 0, state: 'done' });
    // the receipt stays: send --status prints the same steps later
    const status = await env.nerdr('send', '--status', steps[0]!.id, '--json');
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { steps: { step: string }[] }).steps.map((x) => x.step)).toEqual(expect.arrayContaining(['queued', 'pasted', 'started', 'state']));
    // what the stream saw: the helper appear, start working on the message and finish
    const lines = seen.trim().split('\n').map((l) => JSON.parse(l) as { type?: string; agent?: { name: string; state: string; parent: string | null }; changed?: string[] });
    const worker = lines.filter((l) => l.agent?.name === 'worker');
    expect(worker[0]).toMatchObject({ type: 'new', agent: { parent: expect.any(String) } });
    const states = worker.filter((l) => l.changed?.includes('state')).map((l) => l.agent!.state);
    expect(states).toEqual(expect.arrayContaining(['working', 'done']));
    events.kill('SIGINT');
  });

  it('a helper of a helper belongs to both; ls --json names each window\'s parent', async () => {
    const [made] = await agentRuns('lead', [['new', '-d', '--name', 'mid', '--cmd', driverCmd(driver, path.join(dir, 'mid.json'), [['new', '-d', '--name', 'leaf', '--cmd', 'exec sleep 300']])]]);
    expect(made!.code, made!.stderr).toBe(0);
    await waitFor(() => existsSync(path.join(dir, 'mid.json')), { what: 'the helper to start its own helper' });
    const rows = await waitFor(async () => {
      const r = await env.lsJson();
      return r.some((x) => x.name === 'leaf') && r;
    }, { what: 'the helper of the helper' });
    const id = (n: string) => rows.find((x) => x.name === n)!.id;
    expect(rows.find((x) => x.name === 'mid')!.parent).toBe(id('lead'));
    expect(rows.find((x) => x.name === 'leaf')!.parent).toBe(id('mid'));
    const [stopLeaf] = await agentRuns('lead-again', [['stop', 'leaf']]);
    // lead-again is another window: leaf is not its own
    expect(stopLeaf!.code).toBe(1);
  });

  it('with [agents] control = "all" an agent may stop any window; a person is never limited', async () => {
    writeFileSync(path.join(env.configDir, 'config.toml'), '[agents]\ncontrol = "all"\n');
    const [stop] = await agentRuns('trusted', [['stop', 'persons']]);
    expect(stop!.code, stop!.stderr).toBe(0);
    writeFileSync(path.join(env.configDir, 'config.toml'), '');
    const r = await env.nerdr('stop', 'leaf');
    expect(r.code, r.stderr).toBe(0);
  });
});
