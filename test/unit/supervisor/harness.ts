// A supervisor without tmux: a fake control channel answering from a small model of a tmux
// server (panes, windows, clients, options), and a fake clock whose timers fire when the test
// advances it. Replies come back in order, on a microtask, as a control client's would.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { expect } from 'vitest';
import { FakeClock } from '../state/helpers.js';
import type { Clock, Timer } from '../../../src/supervisor/clock.js';
import type { ControlChannel, ControlChannelEvents, ControlServer } from '../../../src/supervisor/channel.js';
import type { Reply } from '../../../src/tmux/client.js';
import { paneListRow } from '../../../src/supervisor/discover.js';
import { pidAlive } from '../../../src/store/lock.js';
import { SNAPSHOT_DISPLAY_FORMAT } from '../../../src/mirror/seed.js';
import { ManifestRegistry } from '../../../src/detect/index.js';
import { Supervisor, type SupervisorOptions } from '../../../src/supervisor/supervisor.js';
import { EXIT_MARKER_WAIT_MS } from '../../../src/supervisor/agent.js';
import { EXIT_MARKER, exitChannel } from '../../../src/supervisor/create.js';
import type { Identification } from '../../../src/detect/identify.js';

/** The arbiter tests' clock, with timers: `advance` fires every timer due on the way, in order. */
export class FakeTime extends FakeClock implements Clock {
  private timers: { at: number; seq: number; fn: () => void }[] = [];
  private seq = 0;

  after(ms: number, fn: () => void): Timer {
    const t = { at: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(t);
    return { cancel: () => void (this.timers = this.timers.filter((x) => x !== t)) };
  }

  override advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= end).sort((x, y) => x.at - y.at || x.seq - y.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = Math.max(this.t, due.at);
      due.fn();
    }
    this.t = end;
  }

  pending(): number {
    return this.timers.length;
  }
}

/** Splits one command as src/tmux/quote.ts quotes it back into its words. */
export function words(cmd: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < cmd.length) {
    if (cmd[i] === ' ') {
      i++;
      continue;
    }
    let w = '';
    while (i < cmd.length && cmd[i] !== ' ') {
      const c = cmd[i]!;
      if (c === "'") {
        const end = cmd.indexOf("'", i + 1);
        w += cmd.slice(i + 1, end);
        i = end + 1;
      } else if (c === '"') {
        i++;
        while (cmd[i] !== '"') {
          if (cmd[i] === '\\') {
            const oct = /^[0-7]{3}/.exec(cmd.slice(i + 1));
            if (oct) {
              w += String.fromCharCode(parseInt(oct[0], 8));
              i += 4;
            } else {
              w += cmd[i + 1];
              i += 2;
            }
          } else w += cmd[i++];
        }
        i++;
      } else if (c === '\\') {
        w += cmd[i + 1];
        i += 2;
      } else w += cmd[i++];
    }
    out.push(w);
  }
  return out;
}

export interface FakePane {
  paneId: string;
  windowId: string;
  /** The user session the window is linked into, and its index there. */
  session: string;
  index: number;
  inHidden: boolean;
  id: string;
  agent: string;
  name: string;
  cwd: string;
  argv: string[];
  args: string[];
  secretHash: string;
  dead: boolean;
  deadStatus: string;
  inMode: boolean;
  width: number;
  height: number;
  pid: number;
  /** The screen, one string per row (plain text). */
  screen: string[];
  /** The environment new-window or respawn-pane gave the program (-e). */
  env: Record<string, string>;
  /** Window options set on it (@nerdr_* and the rest), as the last set-option left them. */
  options: Map<string, string>;
}

export interface FakeClient {
  name: string;
  /** The client's process (1 unless a test needs a real one) and the session it is attached to. */
  pid?: number;
  session?: string;
  control: boolean;
  windowId: string;
  focused: boolean;
  inMode: boolean;
}

/** Enough of a tmux server to answer what the supervisor asks. */
export class FakeTmux {
  readonly panes = new Map<string, FakePane>();
  readonly clients: FakeClient[] = [];
  readonly globals = new Map<string, string>();
  /** Every command line the supervisor sent, as lists of commands. */
  readonly lines: string[][] = [];
  /** `_nerdr`'s own window, as `list-windows -t =_nerdr` lists it. */
  home = '@0';
  /** What `#{version}` answers. */
  version = '3.4';
  /** The channel's output keeper (its pid, as `companions` says it): listed by list-clients from the `keeperListedAt`th list on. */
  keeper: number | null = null;
  keeperListedAt = 1;
  /** The number of list-clients asked so far (through the channel or plainly). */
  clientLists = 0;
  /** For each plain list-clients (before a control client: ControlServer.clients), how many channels were opened before it. */
  readonly plainLists: number[] = [];
  /** How many channels were opened. */
  opened = 0;
  /** Each list-clients: through a channel or plainly, and the pids it listed. */
  readonly listed: { channel: boolean; pids: number[] }[] = [];
  /** The server's pid as `#{pid}` and the socket answer it (a killed server and a new one differ). */
  serverPid: number | null = 1;
  private next = 1;
  /** The window new-window just made: `=_nerdr:` names it for the rest of the line. */
  private current: FakePane | null = null;

  addPane(over: Partial<FakePane> = {}): FakePane {
    const n = this.next++;
    const p: FakePane = {
      paneId: `%${n}`,
      windowId: `@${n}`,
      session: 'user',
      index: n,
      inHidden: true,
      id: `a${n}`,
      agent: 'demo',
      name: `w${n}`,
      cwd: '/work',
      argv: ['demo'],
      args: [],
      secretHash: `hash${n}`,
      dead: false,
      deadStatus: '',
      inMode: false,
      width: 80,
      height: 24,
      pid: 4000 + n,
      screen: [],
      env: {},
      options: new Map(),
      ...over,
    };
    this.panes.set(p.paneId, p);
    return p;
  }

  pane(id: string): FakePane {
    const p = this.panes.get(id) ?? [...this.panes.values()].find((x) => x.windowId === id);
    if (!p) throw new Error(`no pane ${id}`);
    return p;
  }

  /** The commands sent so far whose verb is one of `verbs`. */
  sent(...verbs: string[]): string[][] {
    return this.lines.flat().map(words).filter((w) => verbs.includes(w[0]!));
  }

  answer(cmd: string): Reply {
    const w = words(cmd);
    const ok = (text = ''): Reply => ({ ok: true, skipped: false, lines: text === '' ? [] : text.split('\n').map((l) => Buffer.from(l)) });
    const fail = (text: string): Reply => ({ ok: false, skipped: false, lines: [Buffer.from(text)] });
    const target = (): string | undefined => (w.indexOf('-t') < 0 ? undefined : w[w.indexOf('-t') + 1]);
    switch (w[0]) {
      case 'list-panes':
        return ok(
          [...this.panes.values()]
            .flatMap((p) => [
              ...(p.inHidden ? [rowOf(p, '_nerdr', 0)] : []),
              rowOf(p, p.session, p.index),
            ])
            .join('')
            .replace(/\n$/, ''),
        );
      case 'list-clients':
        return ok(this.listClients(w[w.length - 1]!));
      case 'display': {
        const format = w[w.length - 1]!;
        if (format.startsWith('#{client_name}')) return ok(`client-1\t1\t${this.version}\t1`);
        const t = target();
        if (t?.startsWith('=')) return ok('$1');
        const p = t ? this.panes.get(t) : undefined;
        if (!p) return fail(`can't find pane: ${t}`);
        // the cursor after the last row's text
        const y = Math.max(0, p.screen.length - 1);
        const x = [...(p.screen[y] ?? '')].length;
        if (format === SNAPSHOT_DISPLAY_FORMAT) return ok(`${p.width} ${p.height} ${x} ${y} 0 0 ${p.height - 1} 1 1 0 0 0 0 0 0`);
        if (format === '#{pane_tty}') return ok('');
        if (format === '#{pane_in_mode}') return ok(p.inMode ? '1' : '0');
        const option = /^#\{(@[\w-]+)\}$/.exec(format);
        if (option) return ok(p.options.get(option[1]!) ?? '');
        if (format === '#{pane_dead}|#{pane_in_mode}|#{pane_input_off}') return ok(`${p.dead ? 1 : 0}|${p.inMode ? 1 : 0}|0`);
        return ok('');
      }
      case 'capture-pane': {
        const p = this.panes.get(target() ?? '');
        if (!p) return fail(`can't find pane: ${target()}`);
        if (w.includes('-P') || w.includes('-a')) return ok();
        return ok(p.screen.join('\n'));
      }
      case 'set-option': {
        const t = target();
        const unset = w.some((x) => /^-\w*u/.test(x));
        const [name, value = ''] = w.slice(t === undefined ? 1 : w.indexOf(t) + 1).filter((x) => !x.startsWith('-') || x === '');
        if (t === undefined) {
          if (name) this.globals.set(name, value);
          return ok();
        }
        const p = t === '=_nerdr:' ? this.current ?? undefined : t ? [...this.panes.values()].find((x) => x.windowId === t || x.paneId === t) : undefined;
        if (p && name) {
          if (name === '@nerdr_agent') p.agent = value;
          if (name === '@nerdr_secret_hash') p.secretHash = value;
          if (name === '@nerdr_pane') p.id = value;
          if (name === '@nerdr_args') p.args = JSON.parse(value) as string[];
          if (unset) p.options.delete(name);
          else p.options.set(name, value);
        }
        return t?.startsWith('@') && !p ? fail(`can't find window: ${t}`) : ok();
      }
      case 'list-windows':
        // _nerdr's own window, which the client's subscriptions are made on
        return ok(w.includes('=_nerdr') ? `${this.home} _home` : '');
      case 'new-window': {
        const p = this.addPane({ name: w[w.indexOf('-n') + 1]!, cwd: w[w.indexOf('-c') + 1]!, agent: '', id: '', secretHash: '', inHidden: true, env: envOf(w) });
        p.argv = w.slice(w.indexOf('--') + 1);
        this.panes.delete(p.paneId);
        this.panes.set(p.paneId, p);
        this.current = p;
        return ok(`${p.windowId} ${p.paneId} ${p.pid}`);
      }
      case 'respawn-pane': {
        const p = this.pane(target()!);
        p.env = envOf(w);
        p.argv = w.slice(w.indexOf('--') + 1);
        p.dead = false;
        return ok();
      }
      case 'link-window': {
        const p = w[w.indexOf('-s') + 1] === '=_nerdr:' ? this.current : this.panes.get(w[w.indexOf('-s') + 1]!) ?? null;
        const to = target()!;
        if (p && !to.startsWith('=_nerdr')) p.session = to.replace(/^=/, '').replace(/:.*$/, '');
        return ok();
      }
      case 'kill-window': {
        const p = this.pane(target()!);
        this.panes.delete(p.paneId);
        return ok();
      }
      case 'show-options':
        return ok();
      default:
        return ok();
    }
  }

  /** list-clients -F format, as tmux answers it (the keeper only on a channel's: it comes with one). */
  listClients(format: string, channel = true): string {
    this.clientLists++;
    // a client whose (real) process ended is gone from the list, as tmux drops it
    const clients = (channel && this.keeper !== null && this.clientLists >= this.keeperListedAt
      ? [...this.clients, { name: 'keeper', pid: this.keeper, session: '_nerdr', control: true, windowId: '@0', focused: false, inMode: false }]
      : this.clients
    ).filter((c) => c.pid === undefined || c.pid === this.keeper || pidAlive(c.pid));
    this.listed.push({ channel, pids: clients.map((c) => c.pid ?? 1) });
    return clients
      .map((c) =>
        format
          .replace('#{client_name}', c.name)
          .replace('#{client_pid}', String(c.pid ?? 1))
          .replace('#{client_control_mode}', c.control ? '1' : '0')
          .replace('#{session_name}', c.session ?? 'user')
          .replace('#{window_id}', c.windowId)
          .replace('#{pane_in_mode}', c.inMode ? '1' : '0')
          .replace('#{client_flags}', c.focused ? 'attached,focused' : 'attached')
          .replace('#{pane_tty}', '')
          .replace('#{allow-passthrough}', 'off'),
      )
      .join('\n');
  }

  /** The supervisor's channels come from here; `open` counts how many were made. */
  server(): ControlServer & { channel: FakeChannel | null; opened: number } {
    const self = this;
    return {
      channel: null,
      opened: 0,
      async open() {
        this.opened++;
        self.opened++;
        this.channel = new FakeChannel(self);
        return this.channel;
      },
      running: async () => true,
      serverPid: async () => self.serverPid,
      async clients(format) {
        self.plainLists.push(self.opened);
        return self.listClients(format, false);
      },
    };
  }
}

function envOf(w: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  w.forEach((x, i) => {
    if (x !== '-e') return;
    const [k, ...v] = w[i + 1]!.split('=');
    env[k!] = v.join('=');
  });
  return env;
}

function rowOf(p: FakePane, session: string, index: number): string {
  return paneListRow([
    p.paneId, p.windowId, session, p.id, p.dead ? '1' : '0', p.deadStatus, String(p.width), String(p.height), p.agent, p.secretHash, p.cwd,
    JSON.stringify(p.argv), String(index), session === '_nerdr' ? '$0' : '$1', String(p.pid), p.options.get('@nerdr_facts') ?? '',
    JSON.stringify(p.args), p.options.get('@nerdr_note') ?? '', '', '', '', p.options.get('@nerdr_lineage') ?? '', p.options.get('@nerdr_idle_after') ?? '', p.name, p.options.get('@nerdr_hibernated') ?? '', p.options.get('@nerdr_typed') ?? '', p.options.get('@nerdr_exit_status') ?? '',
  ]);
}

export class FakeChannel extends EventEmitter<ControlChannelEvents> implements ControlChannel {
  closed = false;
  /** While true, answers wait for release(): tmux ran the commands, but their answers are still on their way. */
  hold = false;
  private held: (() => void)[] = [];

  constructor(private readonly tmux: FakeTmux) {
    super();
  }

  get companions(): number[] {
    return this.tmux.keeper === null ? [] : [this.tmux.keeper];
  }

  send(commands: string[], done: (replies: Reply[]) => void): void {
    this.tmux.lines.push(commands);
    const replies: Reply[] = [];
    for (const c of commands) {
      const r = replies.some((x) => !x.ok) ? { ok: false, skipped: true, lines: [] } : this.tmux.answer(c);
      replies.push(r);
    }
    if (this.hold) this.held.push(() => done(replies));
    else queueMicrotask(() => done(replies));
  }

  /** Delivers the answers held so far, in order (those of commands sent meanwhile wait for the next release while hold lasts). */
  release(): void {
    for (const deliver of this.held.splice(0)) deliver();
  }

  /** A pane writes bytes. */
  output(pane: string, text: string): void {
    this.emit('output', pane, Buffer.from(text));
  }

  notify(name: string, args = ''): void {
    this.emit('notification', name, args);
  }

  /** How many command lines had been sent when the supervisor closed the channel (null: not closed). */
  closedAt: number | null = null;

  async close(): Promise<void> {
    this.closed = true;
    this.closedAt = this.tmux.lines.length;
  }

  kill(): void {
    this.closed = true;
    this.emit('exit', 'killed');
  }
}

/** Lets replies (microtasks) and the mirror's parser (xterm writes on real timers) run. */
export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setTimeout(r, 0));
}

/**
 * Pane %1's program exited while its output was paused for us (its status set), the screen was
 * just taken, and the guard's marker never comes: the guard is released EXIT_MARKER_WAIT_MS
 * later, once, and a marker that comes late is not signalled again (tmux would keep it for the
 * next program).
 */
export async function expectGuardReleasedOnce(rig: Rig): Promise<void> {
  await rig.wait(EXIT_MARKER_WAIT_MS - 30);
  expect(rig.tmux.sent('wait-for')).toEqual([]);
  await rig.wait(40);
  expect(rig.tmux.sent('wait-for')).toEqual([['wait-for', '-S', exitChannel('%1')]]);
  expect(rig.logs.filter((l) => l.includes('released without its marker'))).toHaveLength(1);
  rig.channel().output('%1', EXIT_MARKER);
  await settle();
  expect(rig.tmux.sent('wait-for')).toHaveLength(1);
}

export interface Rig {
  sup: Supervisor;
  tmux: FakeTmux;
  time: FakeTime;
  channel: () => FakeChannel;
  logs: string[];
  /** Advances the fake clock, letting replies and the mirror catch up between timers. */
  wait(ms: number): Promise<void>;
  stateDir: string;
  done(): Promise<void>;
}

export interface RigOptions {
  /** Real time instead of the fake clock (then `wait` is of no use). */
  clock?: Clock;
  manifests?: ManifestRegistry;
  /** Which agent a pane's processes are (default: none). */
  probe?: (panePid: number) => Promise<Identification>;
  /** A state folder of an earlier rig (its queues, its saved sessions): kept when this one is done. */
  stateDir?: string;
  /** `[agents] on_limit` and `limit_message` (default: wait, as config.toml's default). */
  onLimit?: () => { onLimit: 'wait' | 'resume'; message: string };
  /** Hibernation's view of the machine's processes, and its signals (src/supervisor/hibernate.ts). */
  processes?: SupervisorOptions['processes'];
  kill?: SupervisorOptions['kill'];
  lifecycle?: SupervisorOptions['lifecycle'];
  plan?: SupervisorOptions['plan'];
  /** Called with the supervisor before it starts (to listen to what its start emits). */
  before?: (sup: Supervisor) => void;
}

/** A supervisor on a fake tmux with the given panes; started (connected, first scan done). */
export async function startRig(setup: (tmux: FakeTmux) => void = () => undefined, opts: RigOptions = {}): Promise<Rig> {
  const tmux = new FakeTmux();
  setup(tmux);
  const time = new FakeTime();
  const server = tmux.server();
  const stateDir = opts.stateDir ?? mkdtempSync(path.join(tmpdir(), 'nerdr-sup-'));
  const logs: string[] = [];
  const sup = new Supervisor({
    tmuxSocket: path.join(stateDir, 'no-tmux.sock'),
    log: (level, m) => void logs.push(`${level} ${m}`),
    installLights: false,
    manifests: opts.manifests ?? new ManifestRegistry({ env: {}, extraDirs: [] }),
    stateDir,
    notify: { bell: false, osc: false, desktop: false },
    clock: opts.clock ?? time,
    control: server,
    probe: opts.probe ?? (async () => ({ agent: null }) as never),
    onLimit: opts.onLimit ?? (() => ({ onLimit: 'wait', message: 'continue' })),
    processes: opts.processes ?? (async () => []),
    kill: opts.kill ?? (() => {
      throw Object.assign(new Error('no such process'), { code: 'ESRCH' });
    }),
    lifecycle: opts.lifecycle,
    plan: opts.plan ?? (async (agent, args) => ({ argv: [agent, ...args], env: { WIRED: '1' }, notes: [] }) as never),
  });
  opts.before?.(sup);
  await sup.start();
  await settle();
  const wait = async (ms: number): Promise<void> => {
    const end = time.t + ms;
    while (time.t < end) {
      time.advance(Math.min(10, end - time.t));
      await settle(1);
    }
  };
  return {
    sup,
    tmux,
    time,
    channel: () => server.channel!,
    logs,
    wait,
    stateDir,
    async done() {
      await sup.stop();
      if (!opts.stateDir) rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
