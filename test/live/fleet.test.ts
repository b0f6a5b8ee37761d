// The fleet over real SSH (docs/fleet.md): two OpenSSH servers on 127.0.0.1, each the way in to a
// "host" of its own (its tmux server and nerdr, set apart by the environment the test's ssh
// config sends), and the local tmux whose status bar shows them.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSupervisor, killPid, REPO_ROOT, run, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv, type RunResult } from './helpers/env.js';
import { keyPair, sshUnavailable, startSshd, type Sshd } from './helpers/sshd.js';

const NERDR = path.join(REPO_ROOT, 'bin', 'nerdr.js');
/** The tmux on the test's PATH (the version under test), for the hosts too. */
const TMUX_DIR = path.dirname(spawnSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).stdout.trim() || '/usr/bin/tmux');

interface Host {
  name: string;
  dir: string;
  env: NodeJS.ProcessEnv;
  /** `nerdr …` on the host, as a person there would type it (not over ssh). */
  nerdr(...args: string[]): Promise<RunResult>;
  tmux(...args: string[]): Promise<RunResult>;
}

function makeHost(root: string, name: string): Host {
  const dir = path.join(root, name);
  for (const d of ['tmux', 'config']) mkdirSync(path.join(dir, d), { recursive: true });
  mkdirSync(path.join(dir, 'state'), { recursive: true, mode: 0o700 });
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k === 'TMUX' || k === 'TMUX_PANE' || k.startsWith('NERDR_') || k.startsWith('HERDR_')) delete env[k];
  // SHELL: the host's own windows run sh, as the live env's do, not the user's login bash and its
  // rc files (pyenv's rehash there left a stale lock when the test's end killed the shell mid-way,
  // and every later bash that read it waited 60 s)
  Object.assign(env, { TMUX_TMPDIR: path.join(dir, 'tmux'), NERDR_STATE_DIR: path.join(dir, 'state'), NERDR_CONFIG_DIR: path.join(dir, 'config'), LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', SHELL: '/bin/sh' });
  return {
    name,
    dir,
    env,
    nerdr: (...args) => run(process.execPath, [NERDR, '-L', 'default', ...args], { env, timeoutMs: 30_000 }),
    tmux: (...args) => run('tmux', ['-f', '/dev/null', ...args], { env, timeoutMs: 20_000 }),
  };
}

describe.skipIf(!tmuxAvailable || sshUnavailable !== null)('the fleet over ssh', () => {
  let env: LiveEnv;
  let root: string;
  let a: Host, b: Host, nosup: Host, noserver: Host;
  let sshdA: Sshd, sshdB: Sshd;
  let sshConfig: string;
  let hostNerdr: string;
  const shq = (x: string) => `'${x.replace(/'/g, `'\\''`)}'`;

  const fleetLs = async (): Promise<{ name: string; state: string; error: { kind: string; message: string; fix: string } | null; agents: { name: string; state: string }[] }[]> => {
    const r = await env.nerdr('fleet', 'ls', '--json');
    if (r.code !== 0) throw new Error(`fleet ls failed: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  const host = async (name: string) => (await fleetLs()).find((h) => h.name === name);
  const statusFleet = async (): Promise<string> => (await env.nerdr('status', '--fleet')).stdout.trim();

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'nerdr-fleet-'));
    // each host's nerdr, on the tmux under test: sshd gives a session its own PATH (it takes no
    // PATH from the client), where the system's tmux may be another version
    hostNerdr = path.join(root, 'nerdr-host');
    writeFileSync(hostNerdr, `#!/bin/sh\nPATH=${shq(TMUX_DIR)}:"$PATH" exec ${shq(process.execPath)} ${shq(NERDR)} "$@"\n`, { mode: 0o755 });
    const user = keyPair(path.join(root, 'user_key'));
    keyPair(path.join(root, 'other_key'));
    sshdA = await startSshd(path.join(root, 'sshd-a'), user);
    sshdB = await startSshd(path.join(root, 'sshd-b'), user);
    a = makeHost(root, 'a');
    b = makeHost(root, 'b');
    nosup = makeHost(root, 'nosup');
    noserver = makeHost(root, 'noserver');
    // the hosts' tmux servers and agents, started there (not by the fleet)
    for (const h of [a, b, nosup]) expect((await h.tmux('new-session', '-d', '-s', 'work', '-x', '100', '-y', '30')).code).toBe(0);
    for (const [h, n] of [[a, 'asker'], [b, 'calm']] as const) {
      const r = await h.nerdr('new', 'demo', '-d', '--name', n, '--', '--ask', '--work', '1');
      expect(r.code, r.stderr).toBe(0);
    }
    const me = os.userInfo().username;
    const setEnv = (h: Host) => `  SetEnv ${['TMUX_TMPDIR', 'NERDR_STATE_DIR', 'NERDR_CONFIG_DIR', 'PATH', 'LANG', 'LC_ALL'].map((k) => `${k}="${h.env[k]}"`).join(' ')}`;
    const alias = (name: string, port: number, h: Host | null, extra: string[] = []) => [`Host ${name}`, '  HostName 127.0.0.1', `  Port ${port}`, `  User ${me}`, ...(h ? [setEnv(h)] : []), ...extra];
    sshConfig = path.join(root, 'ssh_config');
    writeFileSync(
      sshConfig,
      [
        ...alias('hostA', sshdA.port, a),
        ...alias('hostB', sshdB.port, b),
        ...alias('nosup', sshdA.port, nosup),
        ...alias('noserver', sshdA.port, noserver),
        ...alias('refused', sshdA.port, a, [`  IdentityFile ${path.join(root, 'other_key')}`]),
        'Host * !refused',
        `  IdentityFile ${path.join(root, 'user_key')}`,
        'Host *',
        '  IdentitiesOnly yes',
        `  UserKnownHostsFile ${path.join(root, 'known_hosts')}`,
        '  StrictHostKeyChecking accept-new',
        '  LogLevel ERROR',
        '',
      ].join('\n'),
    );
    env = await startLiveEnv();
    writeFileSync(path.join(env.configDir, 'config.toml'), `# my settings\n[fleet]\nssh = ["ssh", "-F", ${JSON.stringify(sshConfig)}]\n`);
    expect((await env.nerdr('supervisor', 'start')).code).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await env?.cleanup();
    await sshdA?.kill();
    await sshdB?.kill();
    for (const h of [a, b, nosup, noserver]) {
      if (!h) continue;
      const sock = (await h.tmux('display', '-p', '#{socket_path}')).stdout.trim();
      // the pid tmux keeps, taken for the supervisor only while it names one (a supervisor that died left it free)
      const kept = Number((await h.tmux('show-options', '-gv', '@nerdr_supervisor_pid')).stdout.trim());
      const sup = kept > 0 && isSupervisor(kept) ? kept : 0;
      await h.tmux('kill-server');
      // the host's supervisor (fleet start made one on noserver) ends with its server; until it has,
      // it may still write into the host's state folder, which is removed next
      if (sup > 0) await killPid(sup);
      if (sock) rmSync(sock, { force: true });
    }
    if (root) rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }, 60_000);

  it('fleet add writes config.toml (the user\'s lines kept), and both hosts\' agents arrive', async () => {
    for (const n of ['hostA', 'hostB']) {
      const r = await env.nerdr('fleet', 'add', n, n, '--nerdr', hostNerdr);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('the supervisor follows it now');
    }
    const text = readFileSync(path.join(env.configDir, 'config.toml'), 'utf8');
    expect(text.startsWith('# my settings\n[fleet]\n')).toBe(true);
    expect(text).toContain('[fleet.hosts.hostA]');
    const dup = await env.nerdr('fleet', 'add', 'hostA', 'elsewhere');
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/already has a host "hostA"[\s\S]*nerdr fleet rm hostA/);
    await waitFor(async () => {
      const hs = await fleetLs();
      if (hs.find((h) => h.name === 'hostA')?.agents.some((x) => x.name === 'asker') && hs.find((h) => h.name === 'hostB')?.agents.some((x) => x.name === 'calm')) return true;
      throw new Error(JSON.stringify(hs.map((h) => [h.name, h.state, h.error?.message, h.agents.map((x) => x.name)])));
    }, { what: 'both hosts connected with their agents', timeoutMs: 25_000 });
    const hs = await fleetLs();
    expect(hs.map((h) => `${h.name}:${h.state}`)).toEqual(['hostA:connected', 'hostB:connected']);
    const ls = await env.nerdr('ls', '--fleet', '--json');
    const rows = JSON.parse(ls.stdout) as { host: string | null; name: string }[];
    expect(rows.filter((r) => r.host).map((r) => `${r.host}/${r.name}`).sort()).toEqual(['hostA/asker', 'hostB/calm']);
  });

  it('the status bar: @nerdr_fleet after the summary, and `status --fleet` the same line in plain text', async () => {
    await waitFor(async () => (await env.tmuxOk('show', '-gv', '@nerdr_fleet')).includes('hostB'), { what: '@nerdr_fleet to name hostB' });
    // last in the summary's live look (before the comma that starts its offline one, docs/tmux.md)
    expect((await env.tmuxOk('show', '-gv', '@nerdr_summary')).trim()).toContain('#{E:@nerdr_fleet},');
    const shown = await env.tmuxOk('display', '-p', '#{E:@nerdr_summary}');
    expect(shown).toContain('hostA');
    expect(shown).toContain('hostB');
    // each host's agent is listed as soon as its window is, idle once its own supervisor has read
    // its screen (until then its state is unknown, which no count shows: `hostB -`)
    await waitFor(
      async () => {
        const line = await statusFleet();
        if (/^hostA ○1  hostB ○1$/.test(line)) return true;
        throw new Error(`${line}; ${JSON.stringify((await fleetLs()).map((h) => [h.name, h.state, h.agents.map((x) => `${x.name}:${x.state}`)]))}`);
      },
      { what: "both hosts' agents idle in `status --fleet`", timeoutMs: 15_000 },
    );
    // the bar follows: @nerdr_fleet is painted 50 ms after the change `status --fleet` already read
    let bar = '';
    await waitFor(async () => /hostA.*○1.*hostB.*○1/.test((bar = await env.tmuxOk('display', '-p', '#{E:@nerdr_summary}'))), {
      what: 'the status bar to show both hosts idle',
      timeoutMs: 5_000,
    }).catch((err: Error) => {
      throw new Error(`${err.message}: ${bar}`);
    });
    expect(bar).toMatch(/hostA.*○1.*hostB.*○1/);
  });

  it('send HOST:NAME delivers on the host; its agent turning blocked changes the local summary', async () => {
    const s = await env.nerdr('send', 'hostA:asker', 'refactor the parser');
    expect(s.code, s.stderr).toBe(0);
    await waitFor(async () => (await a.nerdr('ls', '--json')).stdout.includes('"blocked"'), { what: 'asker blocked on host a', timeoutMs: 20_000 });
    await waitFor(async () => /^hostA ✋1  hostB ○1$/.test(await statusFleet()), { what: 'the local summary to show hostA blocked', timeoutMs: 10_000 });
    expect(await env.tmuxOk('show', '-gv', '@nerdr_fleet')).toContain('✋1');
    // the other commands reach the host too, with its exit status
    const read = await env.nerdr('read', 'hostA:asker');
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toContain('Do you want to proceed?');
    // an agent window here may read the host's agents, not act on them (its supervisor cannot tell)
    const asAgent = { env: { NERDR_TAB: 'the-secret-of-some-agent-window' } };
    const refused = await env.nerdrWith(['send', 'hostA:asker', 'rm -rf /'], asAgent);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/agent window: it may not send agents on other hosts[\s\S]*control = "all"/);
    expect((await env.nerdrWith(['read', 'hostA:asker'], asAgent)).code).toBe(0);
    const missing = await env.nerdr('read', 'hostA:nosuch');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('nosuch');
  });

  it('next --fleet goes to the blocked remote agent: a window named after its host, attached over ssh; again, it is reused', async () => {
    // a person's client on the local server (stdin an open pipe: `script` types ^D at its EOF)
    const client = spawn('script', ['-qfc', `tmux -L ${env.server} attach -t user`, '/dev/null'], { env: env.env, stdio: ['pipe', 'ignore', 'ignore'] });
    env.track(client.pid!);
    await waitFor(async () => (await env.tmuxOk('list-clients', '-F', '#{client_control_mode}')).split('\n').includes('0'), { what: 'the attached client' });
    const n = await env.nerdr('next', '--fleet');
    expect(n.code, n.stderr).toBe(0);
    expect(n.stdout.trim()).toBe('hostA:asker (blocked)');
    const wins = async () => (await env.tmuxOk('list-windows', '-t', 'user', '-F', '#{window_id} #{window_name} #{@nerdr_fleet_host}')).trim().split('\n');
    const fleetWin = (await wins()).find((l) => l.endsWith(' hostA hostA'))!.split(' ')[0]!;
    expect((await env.tmuxOk('list-clients', '-F', '#{client_control_mode} #{window_id}')).split('\n')).toContain(`0 ${fleetWin}`);
    // the remote tmux, nested in the local window, shows the asker's dialog
    await waitFor(async () => (await env.tmuxOk('capture-pane', '-p', '-t', fleetWin)).includes('Do you want to proceed?'), { what: "the host's screen in the local window", timeoutMs: 15_000 });
    const again = await env.nerdr('next', '--fleet');
    expect(again.code, again.stderr).toBe(0);
    expect((await wins()).filter((l) => l.endsWith(' hostA'))).toHaveLength(1);
    await env.tmuxOk('kill-window', '-t', fleetWin);
    client.kill();
  });

  it('dash --fleet lists the hosts\' agents as HOST:NAME beside this machine\'s, and previews their screen', async () => {
    const win = (await env.tmuxOk('new-window', '-d', '-P', '-F', '#{window_id}', '-n', 'dash', process.execPath, NERDR, '-L', env.server, 'dash', '--fleet')).trim();
    const capture = () => env.tmuxOk('capture-pane', '-p', '-t', win);
    // it opens on the inbox; Tab shows the agent list
    await waitFor(async () => (await capture()).includes(' · inbox '), { what: 'the dashboard to open on its inbox', timeoutMs: 20_000 });
    await env.tmuxOk('send-keys', '-t', win, 'Tab');
    let seen = '';
    await waitFor(async () => {
      seen = await capture();
      return seen.includes('hostA:asker') && seen.includes('hostB:calm');
    }, { what: 'the dashboard to list both hosts\' agents', timeoutMs: 20_000 }).catch((err: Error) => {
      throw new Error(`${err.message}\n${seen}`);
    });
    expect(seen.split('\n').find((l) => l.includes('hostA:asker'))).toMatch(/hostA:asker\s+demo\s+blocked/);
    // the preview of the selected row comes over ssh: select hostA:asker (rows: hostA, then hostB)
    await waitFor(async () => (await capture()).includes('Do you want to proceed?'), { what: "the remote agent's screen in the preview", timeoutMs: 15_000 }).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await capture()}`);
    });
    await env.tmuxOk('send-keys', '-t', win, 'q');
    await env.tmux('kill-window', '-t', win);
  });

  it("inbox --fleet lists the host's dialog with its host; answer HOST:NAME answers it there, checked against its prompt", async () => {
    const rows = async () => {
      const r = await env.nerdr('inbox', '--fleet', '--json');
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { rows: { id: string; host: string | null; name: string; kind: string; dialog: { text: string } | null }[] }).rows;
    };
    const row = await waitFor(async () => (await rows()).find((r) => r.host === 'hostA' && r.name === 'asker' && r.kind === 'blocked') ?? null, { what: "hostA's prompt in inbox --fleet", timeoutMs: 20_000 });
    expect(row.dialog?.text).toContain('Do you want to proceed?');
    const text = await env.nerdr('inbox', '--fleet');
    expect(text.stdout).toMatch(/hostA\s+asker\s+demo\s+blocked: Do you want to proceed\?/);
    // the web page's stream carries the same row, with its host
    const web = spawn(process.execPath, [NERDR, '-L', env.server, 'web', '--json'], { env: env.env, stdio: ['ignore', 'pipe', 'pipe'] });
    env.track(web.pid!);
    try {
      let out = '';
      web.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
      const { url, port } = JSON.parse(await waitFor(() => (out.includes('\n') ? out.slice(0, out.indexOf('\n')) : null), { what: 'nerdr web to print its URL', timeoutMs: 20_000 })) as { url: string; port: number };
      const login = await fetch(url, { redirect: 'manual' });
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const events = await fetch(`http://127.0.0.1:${port}/events`, { headers: { cookie } });
      const reader = events.body!.getReader();
      let seen = '';
      await waitFor(async () => {
        const { value } = await reader.read();
        seen += new TextDecoder().decode(value ?? new Uint8Array());
        return /"host":"hostA"/.test(seen) && seen.includes(row.id);
      }, { what: "the page's stream to carry hostA's row", timeoutMs: 20_000 });
      await reader.cancel();
    } finally {
      web.kill('SIGINT');
    }
    const stale = await env.nerdr('answer', 'hostA:asker', 'approve', '--prompt', 'p000000000');
    expect(stale.code).toBe(7);
    expect(stale.stderr).toContain('the prompt changed');
    const ok = await env.nerdr('answer', 'hostA:asker', 'approve', '--prompt', row.id);
    expect(ok.code, ok.stderr).toBe(0);
    await waitFor(async () => (await a.nerdr('read', 'asker')).stdout.includes('… ok'), { what: 'the approved command to run on host a', timeoutMs: 15_000 });
  });

  it('a host whose sshd dies goes stale, the other keeps updating; back, it reconnects', async () => {
    await sshdB.kill();
    await waitFor(async () => (await host('hostB'))?.state === 'stale', { what: 'hostB stale', timeoutMs: 20_000 });
    expect((await host('hostB'))!.agents.map((x) => x.name)).toEqual(['calm']);
    expect(await statusFleet()).toMatch(/hostB ○1 \(stale \d+s\)/);
    // hostA still follows: a new agent there shows up
    const r = await a.nerdr('new', 'demo', '-d', '--name', 'second');
    expect(r.code, r.stderr).toBe(0);
    await waitFor(async () => (await host('hostA'))?.agents.some((x) => x.name === 'second'), { what: 'hostA to show its new agent', timeoutMs: 15_000 });
    await sshdB.start();
    // the backoff is at most a few seconds this early
    await waitFor(async () => (await host('hostB'))?.state === 'connected', { what: 'hostB connected again', timeoutMs: 40_000 });
  });

  it('a host without nerdr, one that refuses the key, one without a supervisor, one without tmux: each says why, with the fix', async () => {
    const add = async (...args: string[]) => {
      const r = await env.nerdr('fleet', 'add', ...args);
      expect(r.code, r.stderr).toBe(0);
    };
    await add('nonerdr', 'hostA', '--nerdr', '/nonexistent/nerdr');
    await add('refused', 'refused', '--nerdr', hostNerdr);
    await add('nosup', 'nosup', '--nerdr', hostNerdr);
    await add('noserver', 'noserver', '--nerdr', hostNerdr);
    const kinds = await waitFor(async () => {
      const hs = await fleetLs();
      const k = Object.fromEntries(hs.map((h) => [h.name, h.error?.kind ?? '']));
      if (['nonerdr', 'refused', 'nosup', 'noserver'].every((n) => k[n])) return hs;
      throw new Error(JSON.stringify(hs.map((h) => [h.name, h.state, h.error?.message])));
    }, { what: 'the four hosts to fail', timeoutMs: 30_000 });
    const by = Object.fromEntries(kinds.map((h) => [h.name, h]));
    expect(by.nonerdr).toMatchObject({ state: 'down', error: { kind: 'no-nerdr' } });
    expect(by.nonerdr!.error!.fix).toContain('--nerdr');
    expect(by.refused).toMatchObject({ state: 'down', error: { kind: 'auth' } });
    expect(by.refused!.error!.fix).toContain('ssh refused');
    expect(by.nosup).toMatchObject({ state: 'down', error: { kind: 'no-supervisor' } });
    expect(by.nosup!.error!.fix).toContain('nerdr fleet start nosup');
    expect(by.noserver).toMatchObject({ state: 'down', error: { kind: 'no-server' } });
    const text = await env.nerdr('fleet', 'ls');
    expect(text.stdout).toMatch(/refused\s+refused\s+down\s+-\s+ssh could not log in/);
    // attach-only: nothing was started on those hosts
    expect((await nosup.nerdr('supervisor', 'status', '--json')).stdout).toMatch(/"running":\s*false/);
    expect((await noserver.tmux('list-sessions')).code).not.toBe(0);
    expect(existsSync(path.join(noserver.dir, 'state')) && spawnSync('ls', [path.join(noserver.dir, 'state')], { encoding: 'utf8' }).stdout.includes('.lock')).toBe(false);
  }, 60_000);

  it('fleet start starts what the fleet never does by itself; fleet rm stops following', async () => {
    const r = await env.nerdr('fleet', 'start', 'noserver');
    expect(r.code, r.stderr).toBe(0);
    expect((await noserver.tmux('list-sessions', '-F', '#{session_name}')).stdout).toContain('work');
    await waitFor(async () => (await host('noserver'))?.state === 'connected', { what: 'noserver connected once started', timeoutMs: 70_000 });
    for (const n of ['nonerdr', 'refused', 'nosup', 'noserver']) expect((await env.nerdr('fleet', 'rm', n)).code).toBe(0);
    expect((await fleetLs()).map((h) => h.name)).toEqual(['hostA', 'hostB']);
    const gone = await env.nerdr('fleet', 'rm', 'nosuch');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('hosts: hostA, hostB');
  }, 90_000);
});

