// A program that prints and exits at once keeps its last output, and tmux lives through it.
// tmux drops what a pane's program wrote just before it exited when the process is gone first
// (about 1 in 6 windows here without the guard, on 3.3a; 3.7c once in a CI run, under load);
// before 3.3 the server segfaults when such a pane dies while nerdr's control client is still
// owed its output. nerdr runs the program under its exit guard (create.ts, docs/tmux.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidAlive, startLiveEnv, tmuxAtLeast, tmuxAvailable, tmuxVersion, waitFor, type LiveEnv } from './helpers/env.js';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { EXIT_UNCONFIRMED_OPTION } from '../../src/supervisor/discover.js';

/** tmux 3.3a may never give a guarded pane its exit status (see `status` below). */
const STATUS_MAY_BE_LOST = tmuxAtLeast(3, 3) && !tmuxAtLeast(3, 4);

describe.skipIf(!tmuxAvailable)('exit guard', () => {
  let env: LiveEnv;
  beforeAll(async () => {
    env = await startLiveEnv();
  });
  afterAll(async () => {
    await env?.cleanup();
  });

  const paneDead = (win: string) => env.tmuxOk('display', '-p', '-t', win, '#{pane_dead}\t#{pane_dead_status}');
  const dead = (win: string) => waitFor(async () => (await paneDead(win)).startsWith('1'), { what: `${win} to be dead`, timeoutMs: 20_000 });
  /**
   * The pane's exit status as tmux lists it. tmux can list a pane dead before it has its status; on
   * tmux 3.3a, on a loaded machine, a guarded pane sometimes never gets one (seen in 3 of 7 runs
   * beside a CI run; docs/tmux.md), so there an empty status is recorded, not failed.
   */
  const status = async (win: string): Promise<string> => {
    const got = await waitFor(async () => (await paneDead(win)).trim().split('\t')[1] || null, { what: `${win}'s exit status`, timeoutMs: 5000 }).catch(() => '');
    if (got === '' && STATUS_MAY_BE_LOST) {
      console.log(`tmux ${tmuxVersion.join('.')} lists ${win} dead without an exit status`);
      return 'lost';
    }
    return got;
  };
  const history = (win: string) => env.tmuxOk('capture-pane', '-p', '-J', '-S', '-', '-t', win);
  const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

  it('twelve windows whose program prints one line and exits at once each keep that line and its status; the server lives', async () => {
    const wins = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const r = await env.nerdr('new', '-d', '--name', `quick${i}`, '--cmd', `printf 'LAST-WORDS-${i}\\n'; exit 4`);
        expect(r.code, r.stderr).toBe(0);
        return r.stdout.trim();
      }),
    );
    // one of the twelve started the supervisor while the others waited for it (src/cli/context.ts):
    // without the start lock, 2 to 7 started at once here, all but one only to close again
    expect(env.supervisorLog().match(/starting in tmux's holder pane/g), env.supervisorLog()).toHaveLength(1);
    const lost: string[] = [];
    for (const [i, win] of wins.entries()) {
      await dead(win);
      expect(await history(win)).toContain(`LAST-WORDS-${i}`);
      const st = await status(win);
      if (st === 'lost') lost.push(win);
      else expect(st).toBe('4');
      // the guard keeps the status itself, for the panes tmux 3.3 lists without one
      expect((await env.tmuxOk('display', '-p', '-t', win, '#{@nerdr_exit_status}')).trim()).toBe('4');
      // released by the supervisor, which had its last output, not by the guard's own limit
      expect((await env.tmuxOk('show-options', '-pqv', '-t', win, EXIT_UNCONFIRMED_OPTION)).trim()).toBe('');
    }
    if (lost.length) console.log(`tmux lost the status of ${lost.length} of 12; nerdr has it from the guard`);
    expect(pidAlive(env.serverPid)).toBe(true);
    // tmux knows a pane is dead before the supervisor has read the notification: wait for it
    const exited = (rows: Awaited<ReturnType<LiveEnv['lsJson']>>) =>
      wins.every((_, i) => rows.some((r) => r.name === `quick${i}` && r.state === 'exited' && r.exitStatus === '4'));
    let rows = await env.lsJson();
    await waitFor(async () => exited((rows = await env.lsJson())), {
      what: 'every window to show exited with status 4',
      timeoutMs: 20_000,
    }).catch((err: Error) => {
      throw new Error(`${err.message}; ls said ${JSON.stringify(rows.map((r) => ({ name: r.name, state: r.state, exitStatus: r.exitStatus })))}`);
    });
    for (const win of wins) await env.tmuxOk('kill-window', '-t', win);
  });

  it("the program is the pane's current command, in its own process group, under the guard", async () => {
    const r = await env.nerdr('new', '-d', '--name', 'long', '--cmd', 'exec sleep 300');
    expect(r.code, r.stderr).toBe(0);
    const win = r.stdout.trim();
    await waitFor(async () => (await env.tmuxOk('display', '-p', '-t', win, '#{pane_current_command}')).trim() === 'sleep', { what: 'sleep to be the current command' });
    const panePid = Number((await env.tmuxOk('display', '-p', '-t', win, '#{pane_pid}')).trim());
    const args = cmdline(panePid);
    expect(args).toContain('nerdr-guard');
    // the terminal's foreground process group (field 8 of stat) is led by the program itself
    const stat = readFileSync(`/proc/${panePid}/stat`, 'utf8');
    const tpgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[5]);
    expect(cmdline(tpgid).slice(0, 2)).toEqual(['sleep', '300']);
    await env.tmuxOk('kill-window', '-t', win);
  });

  it('with the supervisor stopped, a program that exits still ends its window with its output and status; the server lives', async () => {
    const r = await env.nerdr('new', '-d', '--name', 'waits', '--cmd', "read x; printf 'BYE-NOW\\n'; exit 5");
    expect(r.code, r.stderr).toBe(0);
    const win = r.stdout.trim();
    await waitFor(async () => (await env.lsJson()).find((x) => x.name === 'waits'), { what: 'the window to be watched' });
    const sup = (await env.supervisorPid())!;
    process.kill(sup, 'SIGSTOP');
    try {
      await env.tmuxOk('send-keys', '-t', win, 'Enter');
      // under the guard the pane waits for the supervisor at most EXIT_GUARD_WAIT_S (6 s)
      await dead(win);
    } finally {
      process.kill(sup, 'SIGCONT');
    }
    expect(await history(win)).toContain('BYE-NOW');
    const st = await status(win);
    if (st !== 'lost') expect(st).toBe('5');
    // the guard gave up on the stopped supervisor, and says so on the pane
    expect((await env.tmuxOk('show-options', '-pqv', '-t', win, EXIT_UNCONFIRMED_OPTION)).trim()).toBe('1');
    expect(pidAlive(env.serverPid)).toBe(true);
    await waitFor(async () => (await env.lsJson()).find((x) => x.name === 'waits' && x.state === 'exited' && x.exitStatus === '5'), { what: 'the supervisor to see the exit, with its status' }).catch(async (err: Error) => {
      // seen failing twice in ~30 runs (once in CI) while a scan's older list of panes could undo
      // the exit it read in the same chunk (src/supervisor/supervisor.ts, scan()): should it fail
      // again, what the supervisor thought, and its log's end
      const row = (await env.lsJson()).find((x) => x.name === 'waits');
      const logs = readdirSync(env.stateDir).filter((f) => f.endsWith('.log'));
      const tails = logs.map((f) => `${f}:\n${readFileSync(path.join(env.stateDir, f), 'utf8').split('\n').slice(-40).join('\n')}`);
      throw new Error(`${err.message}\nls: ${JSON.stringify(row)}\n${tails.join('\n')}`);
    });
    await env.tmuxOk('kill-window', '-t', win);
  });
});
