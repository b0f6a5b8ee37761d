// The fleet in the local supervisor: one FleetLink per configured host (link.ts), and what the
// status bar shows of them, `@nerdr_fleet`: per host its name and its agents counted by state
// (in the lights' colours), a stale host marked with the age of what it shows, a host that cannot
// be reached crossed out. Host names are checked at load (config.ts FLEET_HOST_NAME), so nothing
// from a remote host reaches a tmux format but counts.

import { spawn } from 'node:child_process';
import type { FleetConfig, FleetHost } from '../config.js';
import type { Clock } from '../supervisor/clock.js';
import { SUMMARY_ORDER } from '../supervisor/lights.js';
import { DEFAULT_LIGHT_BG, DEFAULT_LOOKS, baseStyle, type Kind, type Look } from '../looks.js';
import { FleetLink, type FleetProcess, type HostStatus, type SpawnFleet } from './link.js';
import { sshArgv } from './ssh.js';
import { LineSplitter } from './lines.js';

/** The remote command the link runs: the event stream, never starting anything there. */
export const FLEET_EVENTS_ARGS = ['events', '--json', '--no-start', '--as-resync', '--until-stdin-ends'];

/**
 * A real ssh: stdout read by line (each at most MAX_LINE_BYTES: past it ssh is killed and the
 * exit says so), the last 8 KiB of stderr kept for the reason it ended.
 */
export const spawnSsh: SpawnFleet = (argv) => {
  // stdin stays open: the remote nerdr ends when it closes (`--until-stdin-ends`), with ssh
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.on('error', () => undefined);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    stderr = (stderr + d).slice(-8192);
  });
  const lineFns: ((line: string) => void)[] = [];
  let lineOver: number | null = null;
  const lines = new LineSplitter(
    (line) => {
      for (const fn of lineFns) fn(line);
    },
    (max) => {
      // nothing more is read from this remote: its link is dropped, and the next one starts afresh
      lineOver = max;
      child.stdout.destroy();
      child.kill('SIGTERM');
    },
  );
  child.stdout.on('data', (d: Buffer) => lines.push(d));
  child.stdout.on('end', () => lines.end());
  let exited: [number | null, string | null] | null = null;
  const exitFns: ((code: number | null, signal: string | null, stderr: string, lineOver?: number | null) => void)[] = [];
  let closed = 0;
  const done = (): void => {
    // both the process and its pipes: the last line is read before the exit is told
    if (++closed < 2 || !exited) return;
    for (const fn of exitFns) fn(exited[0], exited[1], stderr, lineOver);
  };
  child.on('exit', (code, signal) => {
    exited = [code, signal];
    done();
  });
  child.on('error', (err) => {
    stderr += `\n${err.message}`;
    exited = [127, null];
    closed = 1;
    done();
  });
  child.stdout.on('close', done);
  const proc: FleetProcess = {
    onLine: (fn) => void lineFns.push(fn),
    onExit: (fn) => void exitFns.push(fn),
    kill: () => void child.kill('SIGTERM'),
  };
  return proc;
};

const sameHost = (a: FleetHost, b: FleetHost): boolean => a.target === b.target && a.nerdr === b.nerdr && a.socket === b.socket;

export class Fleet {
  private readonly links = new Map<string, FleetLink>();
  private cfg: FleetConfig = { ssh: ['ssh'], hosts: {} };

  constructor(
    private readonly clock: Clock,
    private readonly changed: () => void,
    private readonly spawnFn: SpawnFleet = spawnSsh,
  ) {}

  /** Follow exactly the hosts of `cfg`: new ones start, removed or changed ones stop. */
  configure(cfg: FleetConfig): void {
    const sshChanged = cfg.ssh.join('\0') !== this.cfg.ssh.join('\0');
    this.cfg = cfg;
    for (const [name, link] of this.links) {
      const want = cfg.hosts[name];
      if (!want || sshChanged || !sameHost(want, link.host)) {
        link.stop();
        this.links.delete(name);
      }
    }
    for (const [name, host] of Object.entries(cfg.hosts)) {
      if (this.links.has(name)) continue;
      const link = new FleetLink(name, host, sshArgv(cfg, host, FLEET_EVENTS_ARGS), this.spawnFn, this.clock, () => this.changed());
      this.links.set(name, link);
      link.start();
    }
    this.changed();
  }

  get size(): number {
    return this.links.size;
  }

  hosts(): HostStatus[] {
    return [...this.links.values()].map((l) => l.status());
  }

  stop(): void {
    for (const l of this.links.values()) l.stop();
    this.links.clear();
  }
}

/** "42s", "3m", "2h", "5d": how old what a stale host shows is. */
export function ageText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

function counts(h: HostStatus): [string, string, number][] {
  const n = new Map<string, number>();
  for (const a of h.agents) n.set(a.state, (n.get(a.state) ?? 0) + 1);
  const out: [string, string, number][] = [];
  for (const [state, glyph] of SUMMARY_ORDER) if (n.get(state)) out.push([state, glyph, n.get(state)!]);
  return out;
}

/** A host's agents counted by state, plain: `✋1 ⏳2` ('' with none). */
export function countsText(h: HostStatus): string {
  return counts(h).map(([, g, k]) => `${g}${k}`).join(' ');
}

/** One host as plain text: `build ✋1 ⏳2`, `vm ○3 (stale 2m)`, `box ✗`. */
export function hostPlain(h: HostStatus, now: number): string {
  const c = countsText(h);
  const base = c ? `${h.name} ${c}` : h.name;
  switch (h.state) {
    case 'connected':
      return c ? base : `${h.name} -`;
    case 'connecting':
      return `${h.name} …`;
    case 'stale':
      return `${base} (stale ${ageText(now - (h.heardAt ?? h.since))})`;
    case 'down':
      return `${h.name} ✗`;
  }
}

/** `nerdr status --fleet`: every host on one line. */
export function fleetPlain(hosts: HostStatus[], now: number): string {
  return hosts.map((h) => hostPlain(h, now)).join('  ');
}

/** @nerdr_fleet: the hosts in the lights' colours; a stale or unreachable host dimmed. */
export function fleetSummaryText(hosts: HostStatus[], now: number, looks: Record<Kind, Look> = DEFAULT_LOOKS, bg: string = DEFAULT_LIGHT_BG): string {
  if (hosts.length === 0) return '';
  const base = baseStyle(bg);
  const parts = hosts.map((h) => {
    const dim = h.state !== 'connected';
    const name = `#[${base},fg=default${dim ? ',dim' : ''}]${h.name}`;
    const c = counts(h).map(([state, glyph, k]) => `#[${base},fg=${looks[state as Kind].color}${dim ? ',dim' : ''}]${glyph}${k}`);
    const tail =
      h.state === 'stale' ? ` #[${base},fg=default,dim]${ageText(now - (h.heardAt ?? h.since))}` : h.state === 'down' ? ` #[${base},fg=default,dim]✗` : h.state === 'connecting' ? ` #[${base},fg=default,dim]…` : '';
    return [name, ...c].join(' ') + tail;
  });
  return `#[push-default]${parts.join(`#[${base}]  `)}#[default]#[pop-default] `;
}
