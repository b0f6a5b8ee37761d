// What a new user meets in the first ten minutes: errors that name the fix, nothing lost.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NERDR_BIN, REPO_ROOT, run, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';

describe.skipIf(!tmuxAvailable)('the first ten minutes', () => {
  let env: LiveEnv;
  beforeAll(async () => {
    env = await startLiveEnv();
    await env.tmuxOk('new-session', '-d', '-s', 'side');
  });
  afterAll(async () => {
    await env?.cleanup();
  });

  const windowsOf = async (session: string): Promise<string[]> =>
    (await env.tmuxOk('list-windows', '-t', `=${session}`, '-F', '#{window_name}')).split('\n').filter(Boolean);

  it('new --cmd and term with -t <missing session> fail, naming the sessions there are; no window is left behind', async () => {
    const before = await env.tmux('list-windows', '-a', '-F', '#{window_id}');
    for (const args of [['new', '-d', '-t', 'nosuch', '--cmd', 'sleep 100'], ['term', '-d', '-t', 'nosuch', 'sleep', '100'], ['new', '-d', '-t', '_nerdr', '--cmd', 'sleep 100']]) {
      const r = await env.nerdr(...args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(/no tmux session "(nosuch|_nerdr)"/);
      expect(r.stderr).toMatch(/name one of: (user, side|side, user)/);
      expect(r.stdout).toBe('');
    }
    // nothing was created anywhere (not even in the hidden _nerdr session)
    const after = await env.tmux('list-windows', '-a', '-F', '#{window_id}');
    const created = after.stdout.split('\n').filter((w) => w && !before.stdout.split('\n').includes(w));
    // the supervisor's own _nerdr placeholder may have appeared; no agent window did
    for (const w of created) expect((await env.tmuxOk('display', '-p', '-t', w, '#{window_name}')).trim()).toBe('_home');
    expect(await windowsOf('user')).toHaveLength(1);
  });
});

describe.skipIf(!tmuxAvailable)('tmux etiquette: nothing changes unless asked', () => {
  let env: LiveEnv;
  beforeAll(async () => {
    env = await startLiveEnv();
  });
  afterAll(async () => {
    await env?.cleanup();
  });
  const option = async (name: string) => (await env.tmuxOk('show-options', '-gv', name)).replace(/\n$/, '');

  it('read-only commands on a server with no nerdr windows start nothing and change nothing', async () => {
    const before = await Promise.all(['window-status-format', 'status-right'].map(option));
    for (const args of [['ls'], ['ls', '--json'], ['status'], ['read', 'x'], ['explain', 'x'], ['doctor'], ['next']]) {
      const r = await env.nerdr(...args);
      if (args[0] === 'read' || args[0] === 'explain') {
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/no agent "x": this tmux server has no nerdr windows/);
      }
    }
    expect((await env.nerdr('ls', '--json')).stdout.trim()).toBe('[]');
    expect(await env.supervisorPid()).toBeNull();
    expect((await env.tmux('has-session', '-t', '=_nerdr')).code).not.toBe(0);
    expect(await Promise.all(['window-status-format', 'status-right'].map(option))).toEqual(before);
  });

  it('tmux uninstall is remembered: a supervisor restart does not put the lights back; install does', async () => {
    const r = await env.nerdr('new', '-d', '--cmd', 'sleep 100');
    expect(r.code, r.stderr).toBe(0);
    await waitFor(async () => (await option('window-status-format')).includes('@nerdr_light'), { what: 'the lights installed' });
    const un = await env.nerdr('tmux', 'uninstall');
    expect(un.code, un.stderr).toBe(0);
    expect(un.stdout).toMatch(/remembered in .*lights-uninstalled.*nerdr tmux install/);
    expect(await option('window-status-format')).not.toContain('@nerdr_light');
    const rs = await env.nerdr('supervisor', 'restart');
    expect(rs.code, rs.stderr).toBe(0);
    await waitFor(async () => (await env.lsJson()).length === 1, { what: 'the window watched again' });
    expect(await option('window-status-format')).not.toContain('@nerdr_light');
    expect(await option('status-right')).not.toContain('@nerdr_summary');
    // the SEEN column and --json's seen say the same: nothing to see while not done/idle
    const rows = await env.lsJson();
    expect(rows[0]!.state).toBe('unknown');
    expect(rows[0]!.seen).toBeNull();
    const line = (await env.nerdr('ls')).stdout.split('\n')[1]!;
    expect(line).toMatch(/\bunknown\s+\S+\s+-\s/);
    const inst = await env.nerdr('tmux', 'install');
    expect(inst.code, inst.stderr).toBe(0);
    expect(await option('window-status-format')).toContain('@nerdr_light');
    await env.nerdr('supervisor', 'restart');
    expect(await option('window-status-format')).toContain('@nerdr_light');
  });
});

describe.skipIf(!tmuxAvailable)('missing programs', () => {
  let env: LiveEnv;
  beforeAll(async () => {
    env = await startLiveEnv();
  });
  afterAll(async () => {
    await env?.cleanup();
  });

  it('new --cmd with a program that is not there fails with the error, and leaves no dead window', async () => {
    for (const cmd of ['aider --yes', 'exec no-such-program-xyz', 'FOO=1 ./not-here.sh']) {
      const r = await env.nerdr('new', '-d', '--cmd', cmd);
      expect(r.code, cmd).toBe(1);
      expect(r.stderr).toMatch(/is not installed here .*no window was made/);
    }
    expect(await env.lsJson()).toEqual([]);
    // what only the shell can judge is left to it
    const ok = await env.nerdr('new', '-d', '--name', 'shelly', '--cmd', 'cd /tmp && exec sleep 100');
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('new <agent> without the agent installed names the install command', async () => {
    const r = await env.nerdrWith(['new', '-d', 'claude'], { env: { PATH: '/usr/bin:/bin' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('npm install -g @anthropic-ai/claude-code');
  });
});

describe.skipIf(!tmuxAvailable)("the plugin's next-agent key", () => {
  let env: LiveEnv;
  let client: ChildProcess;
  beforeAll(async () => {
    env = await startLiveEnv();
  });
  afterAll(async () => {
    await env?.cleanup();
  });

  it('jumps to the agent that needs you, shows nothing over the pane, and goes on to the next one when pressed again', async () => {
    const wins: string[] = [];
    for (const name of ['first', 'second']) {
      const r = await env.nerdr('new', 'demo', '-d', '--name', name, '--', '--auto', '1', '--ask', '--work', '0');
      expect(r.code, r.stderr).toBe(0);
      wins.push(r.stdout.trim());
      // blocked one after the other: "first" is the oldest
      await waitFor(async () => (await env.lsJson()).find((a) => a.name === name)?.state === 'blocked', { what: `${name} blocked`, timeoutMs: 20_000 });
    }
    await env.tmuxOk('set-option', '-g', '@nerdr-bin', NERDR_BIN);
    await env.tmuxOk('set-option', '-g', '@nerdr-key-next', 'N');
    await env.tmuxOk('run-shell', path.join(REPO_ROOT, 'tmux', 'nerdr.tmux'));
    // a real client; its stdin stays an open pipe (at EOF `script` would type ^D into the pane)
    client = spawn('script', ['-qfc', `tmux -L ${env.server} attach -t user`, '/dev/null'], { env: env.env, stdio: ['pipe', 'ignore', 'ignore'] });
    env.track(client.pid!);
    await waitFor(async () => (await env.tmuxOk('list-clients', '-F', '#{client_control_mode}')).split('\n').includes('0'), { what: 'the attached client' });
    const shown = async () => (await env.tmuxOk('list-clients', '-F', '#{client_control_mode} #{window_id} #{pane_mode}')).split('\n').find((l) => l.startsWith('0 '))!.split(' ');
    for (const want of [wins[0], wins[1], wins[0]]) {
      client.stdin!.write('\x02N'); // prefix N
      const [, win, mode] = await waitFor(async () => {
        const s = await shown();
        return s[1] === want && s;
      }, { what: `the client on ${want}` });
      expect(win).toBe(want);
      expect(mode ?? '').toBe(''); // not view-mode: run-shell printed nothing
    }
  });
});

describe.skipIf(!tmuxAvailable)('the demo explains itself', () => {
  let env: LiveEnv;
  beforeAll(async () => {
    env = await startLiveEnv();
  });
  afterAll(async () => {
    await env?.cleanup();
  });

  it('opens a live guide beside its agents, reuses them when run again, and ends with --stop', async () => {
    const first = await env.nerdr('demo');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^demo agents in windows \d+, \d+, \d+; the guide is window \d+\./);
    const again = await env.nerdr('demo');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^the demo was already running/);
    const names = (await env.tmuxOk('list-windows', '-t', '=user', '-F', '#{window_name}')).split('\n').filter(Boolean);
    expect(names.filter((n) => n === 'nerdr-guide')).toHaveLength(1);
    expect(names.filter((n) => n.startsWith('demo-')).sort()).toEqual(['demo-asks', 'demo-fast', 'demo-slow']);
    // the numbers it names are the ones in the status bar
    const byIndex = Object.fromEntries(
      (await env.tmuxOk('list-windows', '-t', '=user', '-F', '#{window_index} #{window_name}')).split('\n').filter(Boolean).map((l) => l.split(' ')),
    );
    const [, nums = '', guideNum = ''] = /windows ([\d, ]+); the guide is window (\d+)/.exec(again.stdout) ?? [];
    expect(nums.split(', ').map((n) => byIndex[n])).toEqual(['demo-fast', 'demo-asks', 'demo-slow']);
    expect(byIndex[guideNum]).toBe('nerdr-guide');
    // the guide: the legend, the agents as they are, commands for this very server
    const guide = await waitFor(async () => {
      const t = await env.tmuxOk('capture-pane', '-p', '-t', '=user:nerdr-guide');
      return /window \d+\s+demo-asks\s+(working|blocked|done|idle)/.test(t) && t;
    }, { what: 'the guide listing the demo agents', timeoutMs: 20_000 });
    expect(guide).toContain('What a light means');
    expect(guide).toContain(`-L ${env.server} ls`);
    expect(guide).toMatch(/End it: .* demo --stop/);
    // a command exactly as printed works
    const tryLine = /^Try: (.*)$/m.exec(again.stdout)![1]!;
    const printed = await run('/bin/sh', ['-c', tryLine], { env: env.env });
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain('demo-asks');

    const stop = await env.nerdr('demo', '--stop');
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toBe('stopped 3 demo agents and the guide\n');
    await waitFor(async () => (await env.lsJson()).length === 0, { what: 'no demo agents left' });
    expect((await env.tmuxOk('list-windows', '-t', '=user', '-F', '#{window_name}')).split('\n')).not.toContain('nerdr-guide');
  });
});

describe.skipIf(!tmuxAvailable)('the reads scripts poll', () => {
  let env: LiveEnv;
  beforeAll(async () => {
    env = await startLiveEnv();
  });
  afterAll(async () => {
    await env?.cleanup();
  });

  /** The full CLI (the bundle's main(), commander and all), as bin/nerdr.js ran it before the fast reads. */
  const fullCli = (...args: string[]) =>
    run(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(path.join(REPO_ROOT, 'dist', 'bundle', 'main.js'))}); await m.main(['node', 'nerdr', ...process.argv.slice(1)]);`, '--', '-L', env.server, ...args], { env: env.env });

  it('ls --json, status and status --json print what the full CLI prints', async () => {
    const made = await env.nerdr('new', '-d', '--name', 'poll', '--cmd', 'exec sleep 1000');
    expect(made.code, made.stderr).toBe(0);
    await waitFor(async () => ((await env.nerdr('ls', '--json')).stdout.includes('"poll"') ? true : null), { timeoutMs: 20_000 });
    for (const args of [['ls', '--json'], ['status'], ['status', '--json']]) {
      // the two are asked one after the other: a state that changed between them is asked again
      await waitFor(
        async () => {
          const [fast, full] = [await env.nerdr(...args), await fullCli(...args)];
          expect(fast.code, args.join(' ')).toBe(0);
          expect(full.code, full.stderr).toBe(0);
          return fast.stdout === full.stdout && fast.stderr === full.stderr ? true : null;
        },
        { timeoutMs: 20_000, what: `nerdr ${args.join(' ')} printing as the full CLI does` },
      );
    }
  });
});
