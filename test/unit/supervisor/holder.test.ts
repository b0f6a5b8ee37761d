import { describe, expect, it } from 'vitest';
import { command, escapeFormat } from '../../../src/tmux/quote.js';
import {
  armArgs,
  disarmArgs,
  failureInLog,
  findHolder,
  holderArgv,
  ifDeadPane,
  holderEnvironment,
  newHolderArgs,
  recentCrashes,
  startDelay,
  startFailure,
  startingNow,
  waitingStart,
  withEnd,
  withReady,
  withStart,
  type StartRecord,
} from '../../../src/supervisor/holder.js';

describe('the holder pane', () => {
  it('runs the supervisor under a fixed sh line, paths as parameters', () => {
    const argv = holderArgv('/usr/bin/node', '/x/bin/nerdr.js', '/tmp/tmux-0/a b;c', '/s/core.log');
    expect(argv.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(argv[2]).not.toContain('/s/core.log');
    expect(argv.slice(4)).toEqual(['/s/core.log', '/usr/bin/node', '--max-semi-space-size=1', '--optimize-for-size', '/x/bin/nerdr.js', '-S', '/tmp/tmux-0/a b;c', 'supervise', '--holder']);
  });

  it('hands the environment on without tmux variables or a window secret', () => {
    const env = holderEnvironment({ PATH: '/bin', TMUX: 'x', TMUX_PANE: '%1', NERDR_TAB: 's3cret', NERDR_STATE_DIR: '/st', 'BAD-NAME': '1', NUL: 'a\0b' });
    expect(env).toEqual({ PATH: '/bin', NERDR_STATE_DIR: '/st', MALLOC_MMAP_THRESHOLD_: '65536' });
    expect(holderEnvironment({ MALLOC_MMAP_THRESHOLD_: '131072' })).toEqual({ MALLOC_MMAP_THRESHOLD_: '131072' });
    const args = newHolderArgs(env, ['sh', '-c', 'x']);
    expect(args.slice(args.indexOf('--'))).toEqual(['--', 'sh', '-c', 'x']);
    expect(args).toContain('PATH=/bin');
  });

  it('arms its own pane: kept on exit, respawned with the same environment; disarming lets it close', () => {
    const args = armArgs('%7', { A: "it's; #{x}" }, 'tmux 3.3a');
    expect(args.slice(0, 6)).toEqual(['set-option', '-p', '-t', '%7', 'remain-on-exit', 'on']);
    // the respawn runs only while %7 is there and dead, so it never fails (live: holder-hooks.test.ts)
    const respawn = command('respawn-pane', '-t', '%7', '-e', "A=it's; #{x}");
    // the value is quoted for tmux's parser: the ; and the quote stay inside one argument
    expect(respawn).toBe(`respawn-pane '-t' '%7' '-e' 'A=it'\\''s; #{x}'`);
    const hook = args[args.indexOf('pane-died') + 1]!;
    expect(hook).toBe(ifDeadPane('%7', respawn));
    expect(ifDeadPane('%7', 'x')).toBe("if-shell '-F' '#{S:#{W:#{P:#{?#{&&:#{==:#{pane_id},%7},#{pane_dead}},1,}}}}' 'x'");
    // the fallback for a pane-died tmux never runs (3.3a): 0.2 s and 1 s after a control client
    // leaves, the pane's own hook is run (the environment is in it alone); run-shell expands
    // formats once, so the condition's # are doubled
    const fallback = args[args.indexOf('client-detached[1]') + 1]!;
    expect(fallback).toBe(command('run-shell', '-b', '-d', '0.2', '-C', escapeFormat(ifDeadPane('%7', "set-hook '-R' '-p' '-t' '%7' 'pane-died'"))));
    expect(fallback).toContain('##{S:##{W:');
    expect(fallback).not.toContain('A=it');
    // a large environment stays within tmux's 16 KB command line: it is carried once, quoted twice
    // (three times, each quoted once more, came to 9 times its size)
    const big = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`npm_config_v${i}`, `it's a value #${i}`]));
    expect(armArgs('%7', big, 'tmux 3.3a').join(' ').length).toBeLessThan(command('respawn-pane', '-t', '%7', ...Object.entries(big).flatMap(([k, v]) => ['-e', `${k}=${v}`])).length * 2);
    expect(args[args.indexOf('client-detached[2]') + 1]!.startsWith("run-shell '-b' '-d' '1' '-C' ")).toBe(true);
    expect(disarmArgs('%7')).toEqual([
      'set-option', '-p', '-t', '%7', 'remain-on-exit', 'off', ';',
      'set-hook', '-p', '-u', '-t', '%7', 'pane-died', ';',
      'set-hook', '-u', '-t', '=_nerdr:', 'client-detached[1]', ';',
      'set-hook', '-u', '-t', '=_nerdr:', 'client-detached[2]',
    ]);
    // where pane-died is never missed: one fallback, a second after
    for (const v of ['tmux 3.2a', 'tmux 3.7c', 'tmux next-3.8']) {
      const other = armArgs('%7', {}, v);
      expect(other[other.indexOf('client-detached[1]') + 1]!.startsWith("run-shell '-b' '-d' '1' '-C' ")).toBe(true);
      expect(other).not.toContain('client-detached[2]');
    }
  });

  it('finds the holder among the hidden session panes', () => {
    const listing = '_home\t%1\t0\t100\t\n_supervisor\t%4\t1\t200\t1\ndemo\t%5\t0\t300\t\n';
    expect(findHolder(listing)).toEqual({ pane: '%4', dead: true, pid: 200 });
    expect(findHolder('_home\t%1\t0\t100\t\n')).toBeNull();
  });
});

describe('crash loops', () => {
  const s = (at: number, pid: number, end?: { at: number; clean: boolean }): StartRecord => ({ at, pid, ended: end ? { ...end, why: 'x' } : null });

  it('a supervisor that ran a while and was killed is revived at once, however often', () => {
    const starts = [s(0, 1), s(10_000, 2), s(20_000, 3), s(30_000, 4)];
    expect(startDelay(starts, 40_000)).toBeNull();
  });

  it('three early crashes in a row make the next start wait, doubling to a minute', () => {
    let starts: StartRecord[] = [s(0, 1)];
    expect(startDelay([...starts, s(100, 2)], 200)).toBeNull();
    starts = [s(0, 1), s(100, 2), s(200, 3)];
    expect(startDelay(starts, 300)).toMatchObject({ ms: 2000 });
    expect(startDelay([...starts, s(300, 4)], 400)).toMatchObject({ ms: 4000 });
    const many = Array.from({ length: 12 }, (_, i) => s(i * 100, i + 1));
    expect(startDelay(many, 1200)!.ms).toBe(60_000);
    expect(startDelay(many, 1200)!.why).toContain('killed without a word');
  });

  it('a clean stop or a long life ends the loop; a wait is not counted as life', () => {
    expect(startDelay([s(0, 1), s(100, 2), s(200, 3, { at: 250, clean: true })], 300)).toBeNull();
    // the one running now is not counted; the one that lived 4.9 s ends the run
    expect(recentCrashes([s(0, 1), s(100, 2), s(5000, 3), s(5100, 4), s(5200, 5)])).toHaveLength(2);
    // a start that waited 8 s and then crashed within a second still crashed early
    let r = withStart([], 0, 1);
    r = withReady(r, 1, 8000);
    r = withEnd(r, 1, 8500, false, 'uncaught: boom');
    expect(recentCrashes(r)).toHaveLength(1);
    expect(r[0]!.ended).toEqual({ at: 8500, clean: false, why: 'uncaught: boom' });
  });
});

describe("a failed start, said at once (the CLI's ensureSupervisor)", () => {
  const since = 1_000_000;
  it('a start since then that runs and has not ended is still starting: the newest, whose pid is alive', () => {
    const alive = (pid: number) => pid !== 3;
    const starts: StartRecord[] = [
      { at: since - 5000, pid: 1, ended: null }, // before: a supervisor that runs (and answers or hangs)
      { at: since + 10, pid: 2, ended: null },
      { at: since + 20, pid: 3, ended: null }, // killed without a word
      { at: since + 30, pid: 4, ended: { at: since + 40, clean: true, why: 'another supervisor runs' } },
    ];
    expect(startingNow(starts, since, alive)?.pid).toBe(2);
    expect(startingNow(starts.slice(2), since, alive)).toBeNull();
    expect(startingNow(starts, since - 10_000, alive)?.pid).toBe(2);
    expect(startingNow(starts.slice(0, 1), since - 10_000, alive)?.pid).toBe(1);
    expect(startingNow([], since, alive)).toBeNull();
  });
  it('the newest end since the command began waiting that was not on purpose', () => {
    const starts: StartRecord[] = [
      { at: since - 5000, pid: 1, ended: { at: since - 4000, clean: false, why: 'an old crash' } },
      { at: since + 10, pid: 2, ended: { at: since + 200, clean: false, why: 'start failed: socket: refusing to serve' } },
      { at: since + 300, pid: 3, ended: null },
    ];
    expect(startFailure(starts, since)).toEqual({ why: 'start failed: socket: refusing to serve' });
    const withFix = withEnd([{ at: since + 10, pid: 6, ended: null }], 6, since + 50, false, 'start failed: /s exists and is not a socket', 'move that file away');
    expect(startFailure(withFix, since)).toEqual({ why: 'start failed: /s exists and is not a socket', fix: 'move that file away' });
    expect(startFailure(starts.slice(0, 1), since)).toBeNull(); // before the command: not its failure
    expect(startFailure([{ at: since + 10, pid: 4, ended: { at: since + 20, clean: true, why: 'another supervisor runs' } }], since)).toBeNull();
    expect(startFailure([{ at: since + 10, pid: 5, ended: null }], since)).toBeNull(); // still starting
    expect(startFailure([], since)).toBeNull();
  });

  it('a crash loop under way: the start that waits, and until when', () => {
    const crash = (at: number, pid: number): StartRecord => ({ at, pid, ended: { at: at + 100, clean: false, why: 'uncaught: boom' } });
    const loop = [crash(since, 1), crash(since + 1000, 2), crash(since + 2000, 3)];
    expect(waitingStart([...loop, { at: since + 3000, pid: 4, ended: null }])).toEqual({ until: since + 5000, why: expect.stringMatching(/3 times in a row .*last: uncaught: boom/) });
    expect(waitingStart([...loop, { at: since + 3000, pid: 4, ready: since + 5000, ended: null }])).toBeNull(); // went on
    expect(waitingStart([crash(since, 1), { at: since + 3000, pid: 4, ended: null }])).toBeNull(); // no loop: no wait
    expect(waitingStart(loop)).toBeNull();
  });

  it("what a supervisor that died before its record left in the log: nerdr's own line and fix, else Node's error line", () => {
    expect(failureInLog('nerdr: tmux 3.1 found; nerdr needs tmux 3.2 or newer\n  fix: apt install tmux\n')).toEqual({ why: 'tmux 3.1 found; nerdr needs tmux 3.2 or newer', fix: 'apt install tmux' });
    expect(failureInLog('2026-12-03T10:00:00.000Z info starting\nnerdr: no tmux server is running at /x\n  fix: start tmux\n')).toEqual({ why: 'no tmux server is running at /x', fix: 'start tmux' });
    expect(failureInLog('nerdr: the state folder /s is open to group/others\n2026-12-03T10:00:00.000Z info ready\n')).toBeNull(); // a warning
    expect(failureInLog('file:///a.js:3\n  x(\n   ^\n\nSyntaxError: Unexpected end of input\n    at foo\n\nNode.js v20.1.0\n')).toEqual({ why: 'SyntaxError: Unexpected end of input' });
    expect(failureInLog('2026-12-03T10:00:00.000Z info supervisor 12 starting\n')).toBeNull();
    expect(failureInLog('')).toBeNull();
  });
});
