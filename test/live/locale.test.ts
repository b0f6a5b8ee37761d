// Any locale (issue 24): a supervisor started with no locale variable at all (cron, systemd, ssh
// without AcceptEnv, `nerdr fleet start`) reads tmux as one started in a UTF-8 shell. Without
// tmux's -u its tmux clients were taken for non-UTF-8 terminals and got every tab as `_`: no
// tmux version, `pid NaN`, and no seen check that could split a list-clients row, so a done
// agent stayed done forever. The user's tmux server and client keep their UTF-8 locale; the
// supervisor and every nerdr command run `env -i` style: PATH, HOME and nerdr's folders only.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NERDR_BIN, pidAlive, processEnv, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv, type RunResult } from './helpers/env.js';

interface Status {
  running: boolean;
  ready?: boolean;
  pid?: number;
  clientPid?: number | null;
  tmuxVersion?: string;
}

interface Check {
  name: string;
  ok: boolean;
  warn?: boolean;
  detail: string;
}

describe.skipIf(!tmuxAvailable)('a supervisor started without a locale', () => {
  let env: LiveEnv;
  let bare: NodeJS.ProcessEnv;
  let supervisor: ChildProcess | null = null;
  let client: ChildProcess | null = null;
  let win = '';

  const nerdr = (...args: string[]): Promise<RunResult> => env.nerdrWith(args, { replaceEnv: bare });
  const status = async (): Promise<Status> => {
    const r = await nerdr('supervisor', 'status', '--json');
    if (r.code !== 0 || !r.stdout.trim()) throw new Error(`nerdr supervisor status --json exited ${r.code ?? r.signal}: ${r.stderr.trim() || '(no stderr)'}`);
    return JSON.parse(r.stdout) as Status;
  };
  const row = async () => {
    const r = await nerdr('ls', '--json');
    if (r.code !== 0) throw new Error(`nerdr ls --json exited ${r.code}: ${r.stderr.trim()}`);
    return (JSON.parse(r.stdout) as { window: string; name: string; state: string; seen: boolean | null }[]).find((a) => a.window === win);
  };

  /** `nerdr supervise --foreground` in the bare environment, as cron or a systemd unit would start it; ready when it answers. */
  async function startSupervisor(): Promise<number> {
    const child = spawn(process.execPath, [NERDR_BIN, '-L', env.server, 'supervise', '--foreground'], { env: bare, stdio: 'ignore' });
    supervisor = child;
    env.track(child.pid!);
    await waitFor(async () => (await status()).ready === true, { timeoutMs: 20_000, what: 'the supervisor to be ready' }).catch((err: Error) => {
      const log = env.supervisorLog().trim().split('\n').slice(-12).join(' | ');
      throw new Error(`${err.message}; pid ${child.pid} ${pidAlive(child.pid!) ? 'alive' : `gone (exit ${child.exitCode ?? child.signalCode})`}; log: ${log}`);
    });
    return child.pid!;
  }

  beforeAll(async () => {
    env = await startLiveEnv();
    bare = {
      PATH: env.env.PATH,
      HOME: env.home,
      NERDR_STATE_DIR: env.stateDir,
      NERDR_CONFIG_DIR: env.configDir,
      ...(env.env.TMUX_TMPDIR ? { TMUX_TMPDIR: env.env.TMUX_TMPDIR } : {}),
    };
  }, 30_000);

  afterAll(async () => {
    if (client?.pid) client.kill('SIGKILL');
    await env?.cleanup();
  });

  it('knows its tmux: the version and its control client pid', async () => {
    const pid = await startSupervisor();
    const inherited = Object.keys(processEnv(pid)).filter((k) => /^(LANG|LC_|TMUX)/.test(k));
    expect(inherited).toEqual([]);
    const s = await status();
    expect(s.pid).toBe(pid);
    expect(`tmux ${s.tmuxVersion}`).toBe((await env.tmuxOk('-V')).trim());
    expect(Number.isInteger(s.clientPid) && s.clientPid! > 0, JSON.stringify(s)).toBe(true);
    expect(await env.tmuxOk('list-clients', '-F', '#{client_pid}')).toContain(String(s.clientPid));
  }, 30_000);

  it('a done agent turns idle once a client shows it (seen)', async () => {
    const r = await nerdr('new', 'demo', '-d', '--name', 'café', '--', '--auto', '0', '--work', '1');
    expect(r.code, r.stderr).toBe(0);
    win = r.stdout.trim();
    await waitFor(async () => (await row())?.state === 'idle', { timeoutMs: 20_000, what: 'the demo to be idle' });
    await env.tmuxOk('send-keys', '-t', win, '-l', 'build it');
    await env.tmuxOk('send-keys', '-t', win, 'Enter');
    await waitFor(async () => (await row())?.state === 'done', { timeoutMs: 20_000, what: 'the demo to be done' });
    expect((await row())?.seen).toBe(false);

    // the user's own terminal (UTF-8), showing another window first: still done
    // (stdin stays an open pipe: at EOF `script` would type ^D into the session's shell)
    client = spawn('script', ['-qfc', `tmux -L ${env.server} attach -t user`, '/dev/null'], { env: env.env, stdio: ['pipe', 'ignore', 'ignore'] });
    env.track(client.pid!);
    await waitFor(async () => (await env.tmuxOk('list-clients', '-F', '#{client_control_mode}')).split('\n').includes('0'), { what: 'the attached client' });
    expect((await row())?.state).toBe('done');
    await env.tmuxOk('select-window', '-t', win);
    await waitFor(async () => (await row())?.state === 'idle', { what: 'the done agent to be seen' });
    expect((await row())?.seen).toBe(true);
  }, 90_000);

  it('a new supervisor finds the window again with its name as it was (café, not caf_)', async () => {
    const old = supervisor!;
    const gone = new Promise((resolve) => old.once('exit', resolve));
    old.kill('SIGTERM');
    await gone;
    expect(pidAlive(old.pid!)).toBe(false);
    await startSupervisor();
    await waitFor(async () => (await row())?.state === 'idle', { timeoutMs: 20_000, what: 'the window found again, idle' });
    expect((await row())?.name).toBe('café');
  }, 60_000);

  it('doctor: no UTF-8 locale is a warning with its fix; the supervisor reads tmux', async () => {
    const r = await nerdr('doctor', '--json');
    const checks = JSON.parse(r.stdout) as Check[];
    const locale = checks.find((c) => c.name === 'locale')!;
    expect(locale).toMatchObject({ ok: true, warn: true });
    expect(locale.detail).toMatch(/^no UTF-8 locale here \(LC_ALL, LC_CTYPE and LANG unset\): nerdr copes/);
    const sup = checks.find((c) => c.name === 'supervisor')!;
    expect(sup.ok, sup.detail).toBe(true);
    expect(sup.detail).toContain(`on tmux ${(await status()).tmuxVersion}`);
    // a warning is no failure: the exit status is the other checks'
    expect(r.code).toBe(checks.every((c) => c.ok) ? 0 : 1);
    const text = (await nerdr('doctor')).stdout;
    expect(text).toMatch(/^warn locale: no UTF-8 locale here/m);
    expect(text).toMatch(/^ {5}fix: export LANG=C\.UTF-8/m);
  }, 30_000);
});
