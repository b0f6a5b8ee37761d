// The fleet's only transport: the user's own ssh, run with argument arrays (docs/fleet.md).
// nerdr adds -T (or -t to attach), BatchMode (never a prompt), keep-alives and a connect timeout,
// and nothing else: the user's ~/.ssh/config (ControlMaster, ports, keys) applies as it is.
// The remote side is a shell command line, so every word of it is quoted for a POSIX shell.

import { shQuote } from '../integrations/common.js';
import { exitFor } from '../errors.js';
import type { FleetConfig, FleetHost } from '../config.js';

/** nerdr's own ssh options: no prompt ever, a dead link noticed within about 45 s. */
export const FLEET_SSH_OPTIONS = ['-o', 'BatchMode=yes', '-o', 'ServerAliveInterval=15', '-o', 'ServerAliveCountMax=3', '-o', 'ConnectTimeout=10'];

/** What `nerdr events --no-start` exits with when the host has no supervisor, or no tmux server. */
export const NO_SUPERVISOR_EXIT = exitFor('no_supervisor');
export const NO_SERVER_EXIT = exitFor('no_server');

/**
 * The remote command line: the host's nerdr, then the arguments, each quoted for the remote
 * shell. A nerdr path starting `~/` keeps the tilde unquoted so the remote shell expands it.
 */
export function remoteCommand(nerdr: string, args: readonly string[]): string {
  const prog = nerdr.startsWith('~/') ? `~/${shQuote(nerdr.slice(2))}` : shQuote(nerdr);
  return [prog, ...args.map(shQuote)].join(' ');
}

/**
 * The local argv that runs `args` with the host's nerdr over ssh, on the host's tmux server (`-L`:
 * over ssh nerdr is not inside tmux). `tty`: -t (to attach), else -T.
 */
export function sshArgv(fleet: FleetConfig, host: FleetHost, args: readonly string[], opts: { tty?: boolean } = {}): string[] {
  return [...fleet.ssh, opts.tty ? '-t' : '-T', ...FLEET_SSH_OPTIONS, '--', host.target, remoteCommand(host.nerdr, ['-L', host.socket, ...args])];
}

/** The local argv that attaches a terminal to a window on the host: the host's `nerdr attach`. */
export function sshAttachArgv(fleet: FleetConfig, host: FleetHost, window: string): string[] {
  return sshArgv(fleet, host, ['attach', window], { tty: true });
}

export type FailureKind = 'auth' | 'unreachable' | 'no-nerdr' | 'no-supervisor' | 'no-server' | 'line-too-long' | 'ended';

export interface FleetFailure {
  kind: FailureKind;
  message: string;
  fix: string;
}

/** "4 MiB", "512 KiB", "100 bytes". */
function bytesText(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/** The last line of ssh's or the remote's stderr that says something. */
function lastLine(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines[lines.length - 1] ?? '';
}

/**
 * Why the ssh to `name` ended, from its exit status and stderr, with the fix. `lineOver`: the
 * cap (bytes) when the link was dropped for a longer line (src/fleet/lines.ts).
 */
export function classifyExit(name: string, host: FleetHost, code: number | null, signal: string | null, stderr: string, lineOver: number | null = null): FleetFailure {
  const said = lastLine(stderr);
  const tail = said ? `: ${said}` : '';
  if (lineOver !== null) {
    return {
      kind: 'line-too-long',
      message: `${name} sent a line over ${bytesText(lineOver)}; the link was dropped (nerdr's event stream sends short lines: something else writes to its output there)`,
      fix: `run \`ssh ${host.target} ${host.nerdr} -L ${host.socket} events --json --no-start\` yourself and look at what comes first (a login script printing to stdout, another program at "${host.nerdr}"); nerdr retries on its own`,
    };
  }
  if (code === 255) {
    if (/permission denied|host key verification failed|no matching host key|too many authentication failures|authentication failed|REMOTE HOST IDENTIFICATION HAS CHANGED/i.test(stderr)) {
      return { kind: 'auth', message: `ssh could not log in to ${name} (${host.target})${tail}`, fix: `run \`ssh ${host.target}\` once yourself (load the key in your agent, accept the host key); nerdr never answers ssh's prompts` };
    }
    return { kind: 'unreachable', message: `ssh could not reach ${name} (${host.target})${tail}`, fix: `check that \`ssh ${host.target} true\` works; nerdr retries on its own` };
  }
  if (code === 127 || code === 126) {
    return { kind: 'no-nerdr', message: `${name} has no nerdr at "${host.nerdr}"${tail}`, fix: `install nerdr on ${name}, or name it: \`nerdr fleet add ${name} ${host.target} --nerdr /path/to/nerdr\`` };
  }
  if (code === NO_SUPERVISOR_EXIT) {
    return { kind: 'no-supervisor', message: `no nerdr supervisor runs on ${name}; the fleet only attaches, it starts nothing`, fix: `start it there, or \`nerdr fleet start ${name}\`` };
  }
  if (code === NO_SERVER_EXIT) {
    return { kind: 'no-server', message: `no tmux server runs on ${name}; the fleet only attaches, it starts nothing`, fix: `start tmux there, or \`nerdr fleet start ${name}\`` };
  }
  const how = signal ? `signal ${signal}` : `exit ${code ?? '?'}`;
  return { kind: 'ended', message: `the stream from ${name} ended (${how})${tail}`, fix: 'nerdr reconnects on its own' };
}
