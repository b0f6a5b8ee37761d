// StatusKeeper (src/supervisor/status-keeper.ts) against a real private tmux server, on a fake
// clock: a config reload's new values get the prefixes back, once, around them; nothing comes
// back after `nerdr tmux uninstall`, over a theme that reads the light itself, or against
// something that keeps taking a prefix out. test/live/status-reload.test.ts runs it in the
// supervisor, told by its subscription.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { argvSafeAll } from '../../../src/tmux/server.js';
import { LIGHT_PREFIX, SUMMARY_PREFIX, SUMMARY_WIDTH, installLights, type RunArgv } from '../../../src/tmux/status.js';
import { REPAIRS, StatusKeeper, statusSubscriptionFormat } from '../../../src/supervisor/status-keeper.js';
import { startServer, tmuxAvailable, type PrivateServer } from '../tmux/helpers.js';
import { FakeTime } from './harness.js';

describe.skipIf(!tmuxAvailable)('StatusKeeper on a real server', () => {
  let srv: PrivateServer;
  let run: RunArgv;
  let clock: FakeTime;
  let wanted: boolean;
  let logged: string[];
  let subscribed: number;
  let keeper: StatusKeeper;
  const show = async (option: string): Promise<string> => (await srv.tmux('show-options', '-gv', option)).replace(/\n$/, '');
  /** What a `source-file` of a config setting these does. */
  const reload = async (values: Record<string, string>): Promise<void> => {
    for (const [k, v] of Object.entries(values)) await run(['set-option', '-g', k, v]);
  };

  beforeAll(async () => {
    srv = await startServer();
    run = (args) => srv.tmux(...argvSafeAll(args));
  });
  afterAll(async () => {
    await srv?.stop();
  });
  beforeEach(async () => {
    for (const o of ['window-status-format', 'window-status-current-format', 'status-right', 'status-right-length']) {
      await srv.tmux('set-option', '-gu', o);
      await srv.tmux('set-option', '-gqu', `@nerdr_saved_${o}`);
    }
    clock = new FakeTime();
    wanted = true;
    logged = [];
    subscribed = 0;
    // a one-shot client cannot subscribe (only a control client can): counted instead
    const keeperRun: RunArgv = (args) => (args[0] === 'refresh-client' ? Promise.resolve(String(++subscribed)) : run(args));
    keeper = new StatusKeeper({ run: keeperRun, clock, log: (level, m) => logged.push(`${level} ${m}`), wanted: () => wanted, anchor: () => '@0' });
    await reload({ 'status-right': 'mine', 'window-status-format': '#I:#W', 'status-right-length': '40' });
    await installLights(run);
  });

  it('puts the prefixes back around the reloaded values, keeping them as the saved ones; status-right widened once', async () => {
    await reload({ 'status-right': 'new right', 'window-status-format': '#I #W new' });
    await keeper.check();
    expect(await show('status-right')).toBe(SUMMARY_PREFIX + 'new right');
    expect(await show('@nerdr_saved_status-right')).toBe('new right');
    expect(await show('window-status-format')).toBe(LIGHT_PREFIX + '#I #W new');
    expect(await show('@nerdr_saved_window-status-format')).toBe('#I #W new');
    // not touched by the reload: still prefixed once
    expect((await show('window-status-current-format')).split(LIGHT_PREFIX)).toHaveLength(2);
    // the reload left the length alone: still the install's 40 + 24, not widened again
    expect(await show('status-right-length')).toBe(String(40 + SUMMARY_WIDTH));
    expect(keeper.repaired).toBe(2);
    // subscribed anew after a repair: tmux would not report a reload back to the value it sent last
    expect(subscribed).toBe(1);
    // a reload that sets the length too gets it widened again
    await reload({ 'status-right': 'again', 'status-right-length': '50' });
    await keeper.check();
    expect(await show('status-right-length')).toBe(String(50 + SUMMARY_WIDTH));
    await keeper.check();
    expect(keeper.repaired).toBe(3);
  });

  it('leaves them out after `nerdr tmux uninstall`, and over a format that reads the summary itself', async () => {
    wanted = false;
    await reload({ 'status-right': 'new right' });
    await keeper.check();
    expect(await show('status-right')).toBe('new right');
    wanted = true;
    await run(['set-option', '-g', '@theme_nerdr', ' #{E:@nerdr_summary}']);
    await reload({ 'status-right': '#{E:@theme_nerdr} %H:%M' });
    await keeper.check();
    expect(await show('status-right')).toBe('#{E:@theme_nerdr} %H:%M');
    expect(keeper.repaired).toBe(0);
    expect(subscribed).toBe(0);
  });

  it(`puts one back at most ${REPAIRS} times a minute, then leaves it out while it keeps being taken out`, async () => {
    for (let i = 0; i < REPAIRS + 2; i++) {
      await reload({ 'status-right': `fight ${i}` });
      await keeper.check();
      clock.advance(5_000);
    }
    expect(keeper.repaired).toBe(REPAIRS);
    expect(await show('status-right')).toBe(`fight ${REPAIRS + 1}`);
    expect(logged.filter((l) => l.startsWith('warn'))).toHaveLength(1);
    expect(logged.find((l) => l.startsWith('warn'))).toMatch(/status-right lost nerdr's prefix 4 times within a minute/);
    // taken out again 50 s later: the hold goes on
    clock.advance(45_000);
    await reload({ 'status-right': 'still fighting' });
    await keeper.check();
    expect(await show('status-right')).toBe('still fighting');
    // a minute of peace: the next loss is put back
    clock.advance(61_000);
    await reload({ 'status-right': 'a reload, later' });
    await keeper.check();
    expect(await show('status-right')).toBe(SUMMARY_PREFIX + 'a reload, later');
    expect(keeper.repaired).toBe(REPAIRS + 1);
    // the other options have budgets of their own
    await reload({ 'window-status-format': 'W' });
    await keeper.check();
    expect(await show('window-status-format')).toBe(LIGHT_PREFIX + 'W');
  });

  it('the subscription format changes when a reload takes a prefix out, and holds no option text', async () => {
    const format = statusSubscriptionFormat();
    const before = (await srv.tmux('display', '-p', '-t', 'user', format)).trim();
    expect(before).toMatch(/^1\.\d+\|1\.\d+\|1\.\d+$/);
    await reload({ 'status-right': 'mine' });
    const after = (await srv.tmux('display', '-p', '-t', 'user', format)).trim();
    expect(after).toMatch(/^1\.\d+\|1\.\d+\|0\.4$/);
  });
});
