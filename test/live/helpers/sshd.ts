// A real OpenSSH server on 127.0.0.1 for the fleet's live tests: its own host key, config and
// authorized key, on a free port; nothing but 127.0.0.1 is ever contacted. The test's own ssh
// config (`ssh -F`) names each "host" as an alias with the environment that makes it a host of
// its own (TMUX_TMPDIR: its tmux server; NERDR_STATE_DIR / NERDR_CONFIG_DIR: its nerdr), sent
// with SetEnv and taken by the server's AcceptEnv.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { waitFor } from './env.js';

export const SSHD = ['/usr/sbin/sshd', '/usr/local/sbin/sshd'].find((p) => existsSync(p)) ?? null;
const ssh = spawnSync('ssh', ['-V'], { encoding: 'utf8' });
/** Why the fleet's live tests cannot run here, or null. */
export const sshUnavailable: string | null = !SSHD
  ? 'no sshd (Debian: apt-get install openssh-server; .ci/run installs it)'
  : ssh.error
    ? 'no ssh client'
    : null;

/**
 * A port for sshd to try: outside the kernel's ephemeral range (where every outgoing connection
 * and every `listen(0)` of the other tests that run meanwhile takes its port), so that only an
 * explicit bind can take it. sshd itself says when the bind fails, and start tries another:
 * no port is picked by listening, closed and then reused.
 */
export function candidatePort(): number {
  let low = 32768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    /* not Linux: the usual range */
  }
  const from = 10_000;
  const to = Math.max(from + 1000, low);
  return from + Math.floor(Math.random() * (to - from));
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

/** Every process below pid (from /proc), deepest first. */
function descendants(pid: number): number[] {
  const kids = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      kids.set(ppid, [...(kids.get(ppid) ?? []), Number(d)]);
    } catch {
      /* gone */
    }
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    for (const k of kids.get(p) ?? []) {
      walk(k);
      out.push(k);
    }
  };
  walk(pid);
  return out;
}

export interface Sshd {
  port: number;
  /** Kill the server and every session it serves: the host is gone. */
  kill(): Promise<void>;
  /** Start it again on the same port. */
  start(): Promise<void>;
  log(): string;
}

/** A key pair made with ssh-keygen (no passphrase). */
export function keyPair(file: string): string {
  if (!existsSync(file)) spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file], { stdio: 'ignore' });
  return readFileSync(`${file}.pub`, 'utf8');
}

export async function startSshd(dir: string, authorized: string): Promise<Sshd> {
  if (!SSHD) throw new Error(sshUnavailable!);
  mkdirSync(dir, { recursive: true });
  // privilege separation needs this folder (made by the Debian package's service, not by sshd)
  if (!existsSync('/run/sshd')) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const hostKey = path.join(dir, 'host_ed25519');
  keyPair(hostKey);
  const keys = path.join(dir, 'authorized_keys');
  // the sessions' HOME: a folder of the test's, so the login shell reads no rc file of the user's
  // (a user's ~/.bashrc can be slow or hold a lock, e.g. pyenv's rehash, left stale when a test
  // kills a session while it runs, after which every later login waits 60 s for it)
  const home = path.join(dir, 'home');
  mkdirSync(home, { recursive: true });
  writeFileSync(keys, authorized, { mode: 0o600 });
  let port = candidatePort();
  const config = path.join(dir, 'sshd_config');
  const writeConfig = (): void =>
    writeFileSync(
      config,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${hostKey}`,
        `AuthorizedKeysFile ${keys}`,
        `PidFile ${path.join(dir, 'sshd.pid')}`,
        // the test's folders are under /tmp, which sshd's StrictModes would refuse
        'StrictModes no',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'PermitRootLogin prohibit-password',
        'AcceptEnv TMUX_TMPDIR NERDR_STATE_DIR NERDR_CONFIG_DIR PATH LANG LC_ALL',
        `SetEnv HOME=${home}`,
        '',
      ].join('\n'),
    );
  writeConfig();
  let child: ChildProcess | null = null;
  let log = '';
  /** Runs sshd on `port`: true once it listens there, false when it could not bind it. */
  const startOn = async (): Promise<boolean> => {
    const c = spawn(SSHD!, ['-f', config, '-D', '-e'], { stdio: ['ignore', 'ignore', 'pipe'] });
    child = c;
    let exited = false;
    c.once('exit', () => void (exited = true));
    c.stderr!.on('data', (d: Buffer) => void (log += d.toString()));
    // ours listens once sshd says so on its stderr (-e): not a connect, which another program
    // on the port would answer too
    const up = await waitFor(() => (exited ? 'exited' : /Server listening on 127\.0\.0\.1 port \d+/.test(log) ? 'listening' : false), {
      what: `sshd on 127.0.0.1:${port} (${log.trim().split('\n').pop() ?? ''})`,
      timeoutMs: 10_000,
    });
    if (up === 'listening') return true;
    child = null;
    if (!/Bind to port \d+ .* failed|Cannot bind any address/.test(log)) throw new Error(`sshd exited: ${log.trim()}`);
    return false;
  };
  /** On the same port as before (a host that comes back); the first start may move to another. */
  let started = false;
  const start = async (): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      log = '';
      if (await startOn()) break;
      if (started || attempt >= 10) throw new Error(`sshd cannot bind 127.0.0.1:${port}: ${log.trim()}`);
      port = candidatePort();
      writeConfig();
    }
    started = true;
  };
  const kill = async (): Promise<void> => {
    const c = child;
    if (!c?.pid) return;
    child = null;
    // an sshd that ended (and was reaped) left its pid free for another process to get
    const ended = c.exitCode !== null || c.signalCode !== null;
    for (const p of ended ? [] : [...descendants(c.pid), c.pid]) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    await waitFor(async () => !(await listening(port)), { what: 'sshd to be gone' });
  };
  await start();
  return { port, kill, start, log: () => log };
}
