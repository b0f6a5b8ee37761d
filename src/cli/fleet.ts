// `nerdr fleet …`: the hosts whose agents this tmux's status bar shows, over the user's own ssh
// (docs/fleet.md). Hosts live in config.toml ([fleet.hosts.NAME]); the local supervisor follows
// them (src/fleet/). Also the remote half of `HOST:NAME` targets for send, wait, read, explain
// and stop: the same command, run with the host's nerdr over ssh, its exit status passed on.

import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Command } from 'commander';
import { FLEET_HOST_NAME, loadConfig, type FleetConfig, type FleetHost } from '../config.js';
import { exitFor, NerdrError } from '../errors.js';
import { configDir } from '../paths.js';
import { readText, writeIfChanged } from '../integrations/common.js';
import { withHost, withoutHost } from '../fleet/config-file.js';
import { classifyExit, sshArgv, sshAttachArgv } from '../fleet/ssh.js';
import type { InboxRow } from '../protocol/index.js';
import type { AgentRow } from '../protocol/index.js';
import { ageText, countsText, fleetPlain } from '../fleet/fleet.js';
import type { HostStatus, RemoteAgent } from '../fleet/link.js';
import { call, callerSecret, supervisorAnswers, tmuxSocket } from './context.js';
import { printJson, table } from './print.js';
import { request } from '../supervisor/socket/index.js';
import { serverFiles } from '../paths.js';
import { nerdrSaid, visible } from '../text.js';

export interface FleetAnswer {
  hosts: HostStatus[];
  now: number;
}

function configFile(): string {
  return path.join(configDir(), 'config.toml');
}

function fleetConfig(): FleetConfig {
  return loadConfig(configDir()).config.fleet;
}

/** `HOST:NAME` where HOST is a fleet host: that host and the name there; otherwise null (a local target). */
export function remoteTarget(target: string, fleet: FleetConfig = fleetConfig()): { name: string; host: FleetHost; rest: string } | null {
  const m = /^([^:]+):(.+)$/s.exec(target);
  if (!m) return null;
  const host = fleet.hosts[m[1]!];
  return host ? { name: m[1]!, host, rest: m[2]! } : null;
}

/**
 * Run `args` with the host's nerdr over ssh, its output on ours; resolves to its exit status. When
 * ssh itself failed (255) the reason and its fix are printed, as for the fleet's own link.
 */
export function runRemote(fleet: FleetConfig, name: string, host: FleetHost, args: string[], opts: { tty?: boolean } = {}): Promise<number> {
  const argv = sshArgv(fleet, host, args, opts);
  return new Promise((resolve) => {
    let stderr = '';
    // attach hands this terminal to the other host's tmux; everything else is read and shown
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['inherit', opts.tty ? 'inherit' : 'pipe', 'pipe'] });
    // the other host's output: shown with its colours (read --ansi), never obeyed by this
    // terminal (src/text.ts); JSON holds no raw control character, so --json passes unchanged.
    // A sequence cut between two reads waits for its end.
    let held = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      const text = held + d;
      const cut = /\x1b(\[[0-9;:]*)?$/.exec(text);
      held = cut ? cut[0] : '';
      process.stdout.write(visible(cut ? text.slice(0, cut.index) : text, { lines: true, colour: true }));
    });
    child.stdout?.on('end', () => {
      if (held) process.stdout.write(visible(held));
    });
    // the other host's words: shown, never obeyed by this terminal (src/text.ts)
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      process.stderr.write(visible(d, { lines: true }));
      stderr = (stderr + d).slice(-8192);
    });
    child.on('error', (err) => {
      process.stderr.write(new NerdrError(`cannot run ${argv[0]}: ${err.message}`, 'install OpenSSH (ssh on PATH), or set [fleet] ssh in config.toml (docs/fleet.md)').render() + '\n');
      resolve(exitFor('failed'));
    });
    child.on('close', (code, signal) => {
      if (code === 255 || code === 127 || code === 126) {
        const why = classifyExit(name, host, code, signal, stderr);
        process.stderr.write(`nerdr: ${visible(why.message)}\n  fix: ${visible(why.fix)}\n`);
      }
      resolve(code ?? exitFor('failed'));
    });
  });
}

/**
 * When `target` names a fleet host (`HOST:NAME`), runs this command there and exits with its
 * status; otherwise returns. `word` is the command; `args` the arguments after it as given here
 * (the target among them, replaced by the name on the host). Global -L/-S are this machine's and
 * are not passed on.
 */
export async function forwardIfRemote(word: string, target: string | undefined): Promise<void> {
  if (target === undefined) return;
  const fleet = fleetConfig();
  const r = remoteTarget(target, fleet);
  if (!r) return;
  refuseAgentWindow(word, target);
  const argv = process.argv.slice(2);
  const at = argv.indexOf(word);
  const rest = argv.slice(at + 1);
  const ti = rest.indexOf(target);
  if (ti >= 0) rest[ti] = r.rest;
  const code = await runRemote(fleet, r.name, r.host, [word, ...rest], { tty: word === 'attach' });
  process.exit(code); // the command's status on the other host, passed on (docs/errors.md)
}

/** What an agent window may run on another host: reading stays open, as it does here. */
const READ_ONLY = new Set(['read', 'explain', 'wait']);

/**
 * The host's supervisor cannot tell an agent here from a person (ssh carries no NERDR_TAB), so the
 * limit is kept on this side: an agent window reads other hosts' agents, it does not act on them
 * unless the user allows it (`[agents] control = "all"`). For HOST:NAME targets and the dashboard.
 */
export function refuseAgentWindow(word: string, target: string): void {
  if (!callerSecret() || READ_ONLY.has(word) || loadConfig(configDir()).config.control === 'all') return;
  throw new NerdrError(
    `this is an agent window: it may not ${word} agents on other hosts (${target})`,
    'the user can allow it with [agents] control = "all" in config.toml',
    { code: 'not_permitted' },
  );
}

async function reload(cmd: Command): Promise<FleetAnswer | null> {
  const sock = await tmuxSocket(cmd, { mustRun: false }).catch(() => null);
  if (!sock || !(await supervisorAnswers(sock))) return null;
  return (await request(serverFiles(sock).socket, 'nerdr.fleet-reload', {}, { timeoutMs: 10_000 })) as FleetAnswer;
}

function stateText(h: HostStatus, now: number): string {
  if (h.state === 'stale') return `stale ${ageText(now - (h.heardAt ?? h.since))}`;
  if (h.state === 'connected') return `connected ${ageText(now - h.since)}`;
  return h.state;
}

export function register(program: Command): void {
  const fleet = program.command('fleet').description("other hosts' agents in this status bar, over your own ssh (docs/fleet.md)");

  fleet
    .command('add <name> <target>')
    .description('follow the agents of the nerdr on TARGET (what your ssh accepts: an alias, user@host, ssh://user@host:port)')
    .option('--nerdr <path>', 'the nerdr command on that host (default: nerdr on its PATH)')
    .option('--socket <name>', 'the -L name of the tmux server there (default: tmux\'s own, "default")')
    .action(async (name: string, target: string, opts: { nerdr?: string; socket?: string }, cmd: Command) => {
      if (!FLEET_HOST_NAME.test(name)) throw new NerdrError(`"${name}" cannot name a host`, 'use letters, digits, ., - and _ (at most 32), starting with a letter or digit');
      if (target.startsWith('-') || target.trim() === '') throw new NerdrError(`"${target}" is not an ssh target`, 'give what you would type after ssh: an alias from ~/.ssh/config, user@host, ssh://user@host:port');
      if (opts.socket !== undefined && !/^[A-Za-z0-9_.-]+$/.test(opts.socket)) throw new NerdrError(`"${opts.socket}" cannot name a tmux socket`, 'the -L name: letters, digits, ., - and _');
      const host: FleetHost = { target, nerdr: opts.nerdr?.trim() || 'nerdr', socket: opts.socket ?? 'default' };
      const file = configFile();
      writeIfChanged(file, withHost(readText(file) ?? '', name, host), 0o600);
      const live = await reload(cmd);
      process.stdout.write(`fleet: ${name} (${target}) added to ${file}; ${live ? 'the supervisor follows it now (`nerdr fleet ls`)' : 'followed once the supervisor runs'}\n`);
    });

  fleet
    .command('rm <name>')
    .description('stop following a host (nothing on the host is touched)')
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      const file = configFile();
      const text = readText(file);
      const out = text === undefined ? undefined : withoutHost(text, name);
      if (out === undefined) {
        const known = Object.keys(fleetConfig().hosts);
        throw new NerdrError(`the fleet has no host "${name}"`, known.length ? `hosts: ${known.join(', ')}` : 'the fleet has no hosts');
      }
      writeIfChanged(file, out, 0o600);
      await reload(cmd);
      process.stdout.write(`fleet: ${name} removed\n`);
    });

  fleet
    .command('ls')
    .description('every host: connected or stale since when, its agents by state, the last error')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const cfg = fleetConfig();
      if (Object.keys(cfg.hosts).length === 0) {
        if (opts.json) return printJson([]);
        process.stdout.write('no hosts; add one: nerdr fleet add NAME SSH-TARGET\n');
        return;
      }
      const a = await fleetAnswer(cmd);
      if (opts.json) return printJson(a.hosts);
      const rows = a.hosts.map((h) => [h.name, h.target, stateText(h, a.now), countsText(h) || '-', h.error ? `${h.error.message} (fix: ${h.error.fix})` : '-']);
      process.stdout.write(table(['HOST', 'TARGET', 'STATE', 'AGENTS', 'LAST ERROR'], rows));
    });

  fleet
    .command('start <name>')
    .description("start tmux (if none runs) and nerdr's supervisor on the host: the only time the fleet starts anything there")
    .action(async (name: string) => {
      const cfg = fleetConfig();
      const host = cfg.hosts[name];
      if (!host) throw new NerdrError(`the fleet has no host "${name}"`, 'add it: nerdr fleet add NAME SSH-TARGET');
      // the host's own nerdr starts its tmux (if none runs) and its supervisor
      const code = await runRemote(cfg, name, host, ['supervisor', 'start', '--server']);
      if (code !== 0) throw new NerdrError(`starting nerdr on ${name} failed (exit ${code})`, `try by hand: ssh ${host.target}, then nerdr supervisor start --server`, { exitCode: code });
      process.stdout.write(`fleet: nerdr runs on ${name}\n`);
    });
}

/** The supervisor's view of the fleet; nothing asked when no host is configured. */
export async function fleetAnswer(cmd: Command): Promise<FleetAnswer> {
  if (Object.keys(fleetConfig().hosts).length === 0) return { hosts: [], now: Date.now() };
  return call<FleetAnswer>(cmd, 'nerdr.fleet');
}

/** `nerdr status --fleet`: the hosts on one line, as the status bar shows them. */
export async function fleetStatusLine(cmd: Command): Promise<string> {
  const a = await fleetAnswer(cmd);
  return a.hosts.length === 0 ? 'no fleet hosts (nerdr fleet add NAME SSH-TARGET)' : fleetPlain(a.hosts, a.now);
}

/** The option that marks a local window as the fleet's way to a host (its value: the host's name). */
export const FLEET_WINDOW_OPTION = '@nerdr_fleet_host';
/** Which remote agent such a window shows: `<agent id>`. */
export const FLEET_AGENT_OPTION = '@nerdr_fleet_agent';

/**
 * `next --fleet`: the most urgent agent here or on a connected host (blocked oldest first, then
 * done), after the one the client shows. A local one is left to `next` (null is returned); a
 * remote one gets the host's window in the client's session (made, or reused and pointed at
 * it), running `ssh -t <target> tmux attach` on that agent's session and window. Says where it went.
 */
export async function nextInFleet(cmd: Command, sock: string, client: { name: string; session: string; window: string }, local: AgentRow[], session: string | null): Promise<string | null> {
  const a = await fleetAnswer(cmd);
  const cfg = fleetConfig();
  const { tmux } = await import('../tmux/server.js');
  const { urgentOrder } = await import('../supervisor/urgent.js');
  const showing = await tmux(sock, ['display', '-p', '-t', client.window, `#{${FLEET_AGENT_OPTION}}`]);
  const shownRemote = showing.code === 0 ? showing.stdout.trim() : '';
  type Cand = { row: AgentRow; host: string | null; id: string };
  const cands: Cand[] = local.filter((r) => session === null || r.sessions.includes(session)).map((row) => ({ row, host: null, id: row.window }));
  for (const h of a.hosts) {
    if (h.state !== 'connected' || !cfg.hosts[h.name]) continue;
    for (const r of h.agents) cands.push({ row: { ...(r as unknown as AgentRow), sessions: [r.session], window: `${h.name}:${r.window}` }, host: h.name, id: `${h.name}:${r.id}` });
  }
  const order = urgentOrder(cands.map((c) => c.row), null).map((row) => cands.find((c) => c.row === row)!);
  if (order.length === 0) return null;
  const at = order.findIndex((c) => (c.host ? c.id === shownRemote : c.row.window === client.window && !shownRemote));
  const next = order[(at + 1) % order.length]!;
  if (!next.host) return null;
  const remote = a.hosts.find((h) => h.name === next.host)!.agents.find((r) => `${next.host}:${r.id}` === next.id)!;
  await openFleetWindow(sock, client, cfg, next.host, remote);
  return `${next.host}:${remote.name} (${remote.state})`;
}

/**
 * Show a remote agent in the client: the host's window in the client's session (made, or reused
 * and pointed at this agent), running `ssh -t <target> tmux attach` on its session and window.
 */
export async function openFleetWindow(sock: string, client: { name: string; session: string }, cfg: FleetConfig, hostName: string, remote: RemoteAgent): Promise<void> {
  const { tmux } = await import('../tmux/server.js');
  const { argvSafe } = await import('../tmux/quote.js');
  const host = cfg.hosts[hostName];
  if (!host) throw new NerdrError(`the fleet has no host "${hostName}"`, `the fleet's hosts: ${Object.keys(cfg.hosts).join(', ') || 'none'} (nerdr fleet ls; nerdr fleet add NAME TARGET adds one)`);
  // what came from the host goes on only once it looks like tmux's own window id
  if (!/^@\d+$/.test(remote.window)) throw new NerdrError(`${hostName} sent a window nerdr does not take: ${JSON.stringify(remote.window)}`, `check the nerdr there: ssh ${host.target} nerdr ls --json`, { code: 'invalid_response' });
  const argv = sshAttachArgv(cfg, host, remote.window).map(argvSafe);
  const list = await tmux(sock, ['list-windows', '-t', `=${client.session}:`.replace(/:$/, ''), '-F', `#{window_id}\t#{${FLEET_WINDOW_OPTION}}`]);
  let win = list.stdout.split('\n').map((l) => l.split('\t')).find((p) => p[1] === hostName)?.[0];
  if (win) {
    const r = await tmux(sock, ['respawn-pane', '-k', '-t', win, ...argv]);
    if (r.code !== 0) throw new NerdrError(`cannot reuse ${hostName}'s window: ${r.stderr.trim()}`, undefined, { code: 'tmux_command' });
  } else {
    const r = await tmux(sock, ['new-window', '-d', '-t', `=${client.session}:`, '-n', hostName, '-P', '-F', '#{window_id}', ...argv]);
    if (r.code !== 0) throw new NerdrError(`cannot open a window for ${hostName}: ${r.stderr.trim()}`, undefined, { code: 'tmux_command' });
    win = r.stdout.trim();
    await tmux(sock, ['set-option', '-w', '-t', win, FLEET_WINDOW_OPTION, hostName]);
  }
  await tmux(sock, ['set-option', '-w', '-t', win, FLEET_AGENT_OPTION, `${hostName}:${remote.id}`]);
  const sw = await tmux(sock, ['switch-client', '-c', client.name, '-t', win]);
  if (sw.code !== 0) throw new NerdrError(`cannot switch to ${hostName}'s window: ${sw.stderr.trim()}`, undefined, { code: 'tmux_command' });
}

/** Most of a host's output `captureRemote` keeps: past it the command is ended and its output refused. */
export const MAX_CAPTURE_BYTES = 8 * 1024 * 1024;

/** Run `args` with the host's nerdr over ssh and take its output (for the dashboard and `inbox --fleet`). */
export function captureRemote(cfg: FleetConfig, host: FleetHost, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const argv = sshArgv(cfg, host, args);
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.length > MAX_CAPTURE_BYTES) {
        out = '';
        err = `its output passed ${MAX_CAPTURE_BYTES} bytes; it was ended and its output dropped`;
        child.stdout.removeAllListeners('data');
        child.stderr.removeAllListeners('data');
        child.kill('SIGKILL');
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => void (err = (err + d).slice(-8192)));
    child.on('error', (e) => resolve({ code: 127, stdout: '', stderr: e.message }));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout: out, stderr: err }));
  });
}

/**
 * `nerdr inbox --fleet`: each connected host's inbox (its own `nerdr inbox --json`, over ssh), its
 * rows marked with the host; a host that fails gives its error instead.
 */
export async function fleetInbox(cmd: Command): Promise<{ rows: InboxRow[]; errors: { host: string; message: string }[] }> {
  const a = await fleetAnswer(cmd);
  return hostInboxes(fleetConfig(), a.hosts.filter((h) => h.state === 'connected').map((h) => h.name));
}

/** The inboxes of these fleet hosts (each host's own `nerdr inbox --json` over ssh), its rows marked with the host; for the CLI and the dashboard. */
export async function hostInboxes(cfg: FleetConfig, names: readonly string[]): Promise<{ rows: InboxRow[]; errors: { host: string; message: string }[] }> {
  const up = names.map((name) => ({ name }));
  const rows: InboxRow[] = [];
  const errors: { host: string; message: string }[] = [];
  await Promise.all(
    up.map(async (h) => {
      const host = cfg.hosts[h.name];
      if (!host) return;
      const r = await captureRemote(cfg, host, ['inbox', '--json']);
      try {
        if (r.code !== 0) throw new NerdrError(nerdrSaid(r.stderr, r.code), undefined, { code: 'failed' });
        const got = JSON.parse(r.stdout) as { rows?: unknown };
        if (!Array.isArray(got.rows)) throw new NerdrError('its answer holds no rows', undefined, { code: 'invalid_response' });
        for (const row of got.rows as InboxRow[]) rows.push({ ...row, host: h.name });
      } catch (err) {
        errors.push({ host: h.name, message: `its inbox could not be read: ${visible((err as Error).message)}` });
      }
    }),
  );
  return { rows, errors };
}
