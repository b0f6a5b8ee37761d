// The fleet without ssh: a fake process per connection attempt and the fake clock (docs/fleet.md).

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { FakeTime } from '../supervisor/harness.js';
import { BACKOFF_FIRST_MS, BACKOFF_MAX_MS, FleetLink, HEALTHY_MS, type FleetProcess } from '../../../src/fleet/link.js';
import { Fleet, FLEET_EVENTS_ARGS, fleetPlain, fleetSummaryText } from '../../../src/fleet/fleet.js';
import { classifyExit, NO_SERVER_EXIT, NO_SUPERVISOR_EXIT, remoteCommand, sshArgv, sshAttachArgv } from '../../../src/fleet/ssh.js';
import { withHost, withoutHost } from '../../../src/fleet/config-file.js';
import { parseConfig, type FleetHost } from '../../../src/config.js';

class FakeProc implements FleetProcess {
  lines: ((l: string) => void)[] = [];
  exits: ((code: number | null, signal: string | null, stderr: string, lineOver?: number | null) => void)[] = [];
  killed = false;
  constructor(readonly argv: string[]) {}
  onLine(fn: (l: string) => void): void {
    this.lines.push(fn);
  }
  onExit(fn: (code: number | null, signal: string | null, stderr: string, lineOver?: number | null) => void): void {
    this.exits.push(fn);
  }
  kill(): void {
    this.killed = true;
  }
  say(obj: unknown): void {
    for (const f of this.lines) f(typeof obj === 'string' ? obj : JSON.stringify(obj));
  }
  exit(code: number | null, stderr = '', signal: string | null = null): void {
    for (const f of this.exits) f(code, signal, stderr);
  }
}

const HOST: FleetHost = { target: 'me@build', nerdr: 'nerdr', socket: 'default' };
const row = (id: string, state: string, extra: Record<string, unknown> = {}) => ({
  id, name: `a-${id}`, agent: 'claude', state, stateSince: 1, session: 'work', sessions: ['work'], window: `@${id}`, windowIndex: 1, cwd: '/w', queue: 0, seen: null, subagents: 0, secretish: 'x', ...extra,
});

function rig() {
  const clock = new FakeTime();
  const procs: FakeProc[] = [];
  let changes = 0;
  const link = new FleetLink('build', HOST, ['ssh', 'x'], (argv) => {
    const p = new FakeProc(argv);
    procs.push(p);
    return p;
  }, clock, () => void changes++);
  return { clock, procs, link, last: () => procs[procs.length - 1]!, changes: () => changes };
}

describe('a fleet link', () => {
  it('connecting, then connected with the host\'s agents once its list arrives; changes follow', () => {
    const r = rig();
    r.link.start();
    expect(r.link.status().state).toBe('connecting');
    r.last().say({ type: 'resync', at: 5, agents: [row('1', 'idle'), row('2', 'working')] });
    let s = r.link.status();
    expect(s.state).toBe('connected');
    expect(s.agents.map((a) => `${a.id}:${a.state}`)).toEqual(['1:idle', '2:working']);
    // only the fields the fleet shows
    expect(Object.keys(s.agents[0]!)).not.toContain('secretish');
    r.last().say({ type: 'change', at: 6, changed: ['state'], was: { state: 'working' }, agent: row('2', 'blocked') });
    r.last().say({ type: 'new', at: 7, agent: row('3', 'done') });
    r.last().say({ type: 'closed', at: 8, id: '1', window: '@1', name: 'a-1' });
    r.last().say('Welcome to the build box!'); // a banner line: ignored
    s = r.link.status();
    expect(s.agents.map((a) => `${a.id}:${a.state}`)).toEqual(['2:blocked', '3:done']);
    expect(s.error).toBeNull();
  });

  it("a host whose supervisor restarts: stale from its reconnecting line, connected again with its resync; a line of a newer nerdr is ignored", () => {
    const r = rig();
    r.link.start();
    r.last().say({ type: 'resync', at: 1, agents: [row('1', 'idle')] });
    r.last().say({ type: 'reconnecting', at: 2 });
    expect(r.link.status()).toMatchObject({ state: 'stale', agents: [expect.objectContaining({ id: '1', state: 'idle' })] });
    r.last().say({ type: 'reconnected', at: 3, awayMs: 1000 });
    r.last().say({ type: 'something-newer', at: 3 });
    expect(r.link.status().state).toBe('stale');
    r.last().say({ type: 'resync', at: 3, agents: [row('1', 'working'), row('2', 'idle')] });
    const s = r.link.status();
    expect(s.state).toBe('connected');
    expect(s.agents.map((a) => `${a.id}:${a.state}`)).toEqual(['1:working', '2:idle']);
    // the same ssh all along
    expect(r.procs).toHaveLength(1);
  });

  it('remote strings lose their control characters', () => {
    const r = rig();
    r.link.start();
    r.last().say({ type: 'resync', at: 1, agents: [row('1', 'idle', { name: 'evil\u001b]0;x\u0007name' })] });
    expect(r.link.status().agents[0]!.name).toBe('evil]0;xname');
  });

  it('a lost link keeps the last agents, stale, and reconnects with backoff: 0.5 s doubling to 60 s', () => {
    const r = rig();
    r.link.start();
    r.last().say({ type: 'resync', at: 1, agents: [row('1', 'blocked')] });
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      const t0 = r.clock.now();
      r.last().exit(255, 'ssh: connect to host build port 22: Connection refused\n');
      const s = r.link.status();
      expect(s.state).toBe('stale');
      expect(s.agents.map((a) => a.state)).toEqual(['blocked']);
      expect(s.error?.kind).toBe('unreachable');
      waits.push(s.retryAt! - t0);
      const n = r.procs.length;
      r.clock.advance(s.retryAt! - t0 - 1);
      expect(r.procs.length).toBe(n);
      r.clock.advance(1);
      expect(r.procs.length).toBe(n + 1);
    }
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]);
    expect(BACKOFF_FIRST_MS).toBe(500);
    expect(BACKOFF_MAX_MS).toBe(60_000);
    // back: connected again, the list replaced
    r.last().say({ type: 'resync', at: 2, agents: [row('1', 'done'), row('4', 'idle')] });
    expect(r.link.status()).toMatchObject({ state: 'connected', error: null });
    expect(r.link.status().agents.map((a) => a.state)).toEqual(['done', 'idle']);
    // a minute of health resets the backoff
    r.clock.advance(HEALTHY_MS);
    r.last().exit(255, 'Connection closed by remote host\n');
    expect(r.link.status().retryAt! - r.clock.now()).toBe(500);
  });

  it('a link that dies young does not reset its backoff', () => {
    const r = rig();
    r.link.start();
    r.last().exit(255, 'Connection refused');
    r.clock.advance(500);
    r.last().say({ type: 'resync', at: 1, agents: [] });
    r.clock.advance(1000);
    r.last().exit(255, 'Connection reset');
    // 0.5 s, then 1 s: the short minute of health did not start it over
    expect(r.link.status().retryAt! - r.clock.now()).toBe(1000);
  });

  it('a host that never answered is down, with the reason and its fix; nothing stale is shown', () => {
    const r = rig();
    r.link.start();
    r.last().exit(255, 'root@127.0.0.1: Permission denied (publickey).\n');
    const s = r.link.status();
    expect(s.state).toBe('down');
    expect(s.agents).toEqual([]);
    expect(s.error).toMatchObject({ kind: 'auth' });
    expect(s.error!.fix).toContain('ssh me@build');
  });

  it('stop kills the ssh and schedules nothing', () => {
    const r = rig();
    r.link.start();
    const p = r.last();
    r.link.stop();
    expect(p.killed).toBe(true);
    p.exit(null, '', 'SIGTERM');
    expect(r.clock.pending()).toBe(0);
    expect(r.procs).toHaveLength(1);
  });
});

describe('ssh', () => {
  it('the user\'s ssh first, then -T and nerdr\'s options, --, the target, the remote line quoted word by word', () => {
    const argv = sshArgv({ ssh: ['ssh', '-F', '/my cfg'], hosts: {} }, { target: 'ssh://me@h:2222', nerdr: '/opt/my nerdr/bin/nerdr', socket: 'default' }, ['send', "it's; rm -rf /", 'x']);
    expect(argv.slice(0, 4)).toEqual(['ssh', '-F', '/my cfg', '-T']);
    expect(argv).toContain('BatchMode=yes');
    expect(argv).not.toContain('ControlMaster=no');
    expect(argv.slice(-3, -1)).toEqual(['--', 'ssh://me@h:2222']);
    expect(argv[argv.length - 1]).toBe(remoteCommand('/opt/my nerdr/bin/nerdr', ['-L', 'default', 'send', "it's; rm -rf /", 'x']));
    expect(argv[argv.length - 1]!.startsWith("'/opt/my nerdr/bin/nerdr' ")).toBe(true);
    // a POSIX shell reads the line back as the same words
    const line = remoteCommand('printf', ['%s\\n', 'send', "it's; rm -rf /", '$(touch /tmp/nerdr-pwned)', 'x']);
    expect(spawnSync('/bin/sh', ['-c', line], { encoding: 'utf8' }).stdout).toBe("send\nit's; rm -rf /\n$(touch /tmp/nerdr-pwned)\nx\n");
    expect(remoteCommand('~/bin/nerdr', ['ls'])).toBe('~/bin/nerdr ls');
    expect(FLEET_EVENTS_ARGS).toContain('--no-start');
  });

  it("attach: -t, the host's nerdr attach on the window", () => {
    const argv = sshAttachArgv({ ssh: ['ssh'], hosts: {} }, HOST, '@4');
    expect(argv[1]).toBe('-t');
    expect(argv[argv.length - 1]).toBe('nerdr -L default attach @4');
  });

  it('why a link ended: refused key, unreachable, no nerdr, no supervisor, no tmux server', () => {
    const k = (code: number, err = '') => classifyExit('build', HOST, code, null, err).kind;
    expect(k(255, 'Permission denied (publickey).')).toBe('auth');
    expect(k(255, 'Host key verification failed.')).toBe('auth');
    expect(k(255, 'ssh: Could not resolve hostname build')).toBe('unreachable');
    expect(k(127, 'sh: 1: nerdr: not found')).toBe('no-nerdr');
    expect(k(NO_SUPERVISOR_EXIT)).toBe('no-supervisor');
    expect(k(NO_SERVER_EXIT)).toBe('no-server');
    expect(k(1, 'nerdr: the supervisor stopped')).toBe('ended');
    expect(classifyExit('build', HOST, NO_SUPERVISOR_EXIT, null, '').fix).toContain('nerdr fleet start build');
    // a line over the cap: killed by the link itself, whatever ssh's status
    const over = classifyExit('build', HOST, null, 'SIGTERM', '', 4 * 1024 * 1024);
    expect(over.kind).toBe('line-too-long');
    expect(over.message).toMatch(/^build sent a line over 4 MiB; the link was dropped/);
    expect(over.fix).toContain('ssh me@build nerdr -L default events --json --no-start');
  });

  it('a link dropped for an overlong line shows that reason, and is tried again', () => {
    const r = rig();
    r.link.start();
    r.last().say({ type: 'resync', at: 1, agents: [] });
    for (const f of r.last().exits) f(null, 'SIGTERM', '', 4 * 1024 * 1024);
    expect(r.link.status().error?.kind).toBe('line-too-long');
    r.clock.advance(BACKOFF_FIRST_MS);
    expect(r.procs).toHaveLength(2);
  });
});

describe('the summary', () => {
  it('per host its counts; stale hosts with their age, unreachable ones crossed out; plain and tmux', () => {
    const clock = new FakeTime();
    const procs: FakeProc[] = [];
    let changed = 0;
    const fleet = new Fleet(clock, () => void changed++, (argv) => {
      const p = new FakeProc(argv);
      procs.push(p);
      return p;
    });
    fleet.configure({ ssh: ['ssh'], hosts: { build: HOST, vm: { target: 'vm', nerdr: 'nerdr', socket: 'default' }, box: { target: 'box', nerdr: 'nerdr', socket: 'default' } } });
    expect(procs.map((p) => p.argv[p.argv.length - 2])).toEqual(['me@build', 'vm', 'box']);
    procs[0]!.say({ type: 'resync', at: 1, agents: [row('1', 'blocked'), row('2', 'working'), row('3', 'working')] });
    procs[1]!.say({ type: 'resync', at: 1, agents: [row('1', 'idle')] });
    procs[1]!.exit(255, 'Connection reset');
    procs[2]!.exit(NO_SUPERVISOR_EXIT);
    clock.advance(120_000);
    expect(fleetPlain(fleet.hosts(), clock.now())).toBe('build ✋1 ⏳2  vm ○1 (stale 2m)  box ✗');
    const tmux = fleetSummaryText(fleet.hosts(), clock.now());
    expect(tmux).toContain('✋1');
    expect(tmux).toMatch(/vm.*dim.*○1.*2m/);
    expect(tmux.endsWith('#[default]#[pop-default] ')).toBe(true);
    expect(fleetSummaryText([], 0)).toBe('');
    // a host removed is no longer followed; a changed target reconnects
    fleet.configure({ ssh: ['ssh'], hosts: { build: { target: 'me@build2', nerdr: 'nerdr', socket: 'default' } } });
    expect(procs[0]!.killed).toBe(true);
    expect(fleet.hosts().map((h) => h.target)).toEqual(['me@build2']);
    fleet.stop();
    expect(changed).toBeGreaterThan(0);
  });
});

describe('config.toml', () => {
  it('[fleet] is read and checked key by key', () => {
    const r = parseConfig('[fleet]\nssh = ["ssh", "-F", "/x"]\n[fleet.hosts.build]\ntarget = "me@build"\nnerdr = "~/bin/nerdr"\n[fleet.hosts."bad name"]\ntarget = "x"\n[fleet.hosts.opt]\ntarget = "-oProxyCommand=evil"\n');
    expect(r.config.fleet).toEqual({ ssh: ['ssh', '-F', '/x'], hosts: { build: { target: 'me@build', nerdr: '~/bin/nerdr', socket: 'default' } } });
    expect(r.problems.map((p) => p.key)).toEqual(['fleet.hosts.bad name', 'fleet.hosts.opt.target']);
  });

  it('fleet add and rm edit only their table, keeping comments; refuse a second host of a name', () => {
    const mine = '# my settings\n[notify]\nbell = false # quiet\n';
    const added = withHost(mine, 'build', { target: 'me@build', nerdr: 'nerdr', socket: 'default' });
    expect(added).toBe('# my settings\n[notify]\nbell = false # quiet\n\n[fleet.hosts.build]\ntarget = "me@build"\n');
    const two = withHost(added, 'vm.east', { target: 'ssh://me@vm:2222', nerdr: '/opt/nerdr', socket: 'work' });
    expect(parseConfig(two).config.fleet.hosts).toEqual({ build: { target: 'me@build', nerdr: 'nerdr', socket: 'default' }, 'vm.east': { target: 'ssh://me@vm:2222', nerdr: '/opt/nerdr', socket: 'work' } });
    expect(() => withHost(two, 'build', { target: 'other', nerdr: 'nerdr', socket: 'default' })).toThrow(/already has a host "build"/);
    expect(withoutHost(withoutHost(two, 'vm.east')!, 'build')).toBe(mine);
    expect(withoutHost(mine, 'build')).toBeUndefined();
    expect(() => withoutHost('[fleet.hosts]\nbuild = { target = "x" }\n', 'build')).toThrow(/does not edit/);
  });
});
