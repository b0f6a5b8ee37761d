// Running the supervisor process: lock, log, control client, socket. Exits when tmux does.

import { existsSync } from 'node:fs';
import { checkTmuxVersion, serverRunning, tmux } from '../tmux/server.js';
import { armArgs, disarmArgs, holderEnvironment, readStarts, startDelay, withEnd, withReady, withStart, writeStarts } from './holder.js';
import { configDir, ensureStateDir, lightsOffFile, nerdrBin, serverFiles } from '../paths.js';
import { formatProblem, loadConfig } from '../config.js';
import { tryLock } from '../store/lock.js';
import { fileLogger, type Logger } from './log.js';
import { Supervisor } from './supervisor.js';
import { createSocketServer, type HookReport, type SocketServer } from './socket/index.js';
import { processStartMs, SpoolReader } from './spool.js';
import type { WatchedAgent } from './agent.js';
import { registerMethods } from './api.js';
import { agentRow } from './rows.js';
import { fleet as fleetMethod, fleetReload, SUPERVISOR_METHODS, supervisorHost } from './methods/index.js';
import { inboxWindow } from './methods/host.js';
import { FOCUS_SUBSCRIPTION, FocusSwitch, focusSubscription, focusWatchCommands, HerdrUplink, herdrTarget } from './herdr-uplink.js';
import { command } from '../tmux/quote.js';
import type { Timer } from './clock.js';
import { NerdrError } from '../errors.js';
import { ManifestRegistry } from '../detect/index.js';
import { NERDR_VERSION } from '../version.js';
import { Fleet, fleetSummaryText } from '../fleet/fleet.js';
import type { HostStatus } from '../fleet/link.js';
import { watchOnEvents } from './on-events.js';
import { promptOf } from '../inbox/rows.js';

/** Where an authenticated hook event goes, from the socket and from the spool alike. */
function applyHook(sup: Supervisor, h: HookReport<WatchedAgent>): void {
  if (h.event) sup.onHook(h.window, h.agent, h.event, h.hint);
}

/**
 * The supervisor's socket: secrets are checked against the windows' stored hashes, hook events
 * and herdr reports go to the supervisor, and the CLI's methods are registered.
 *
 * `known` settles once the supervisor has found the server's windows (Supervisor.start): a report
 * that arrives before that waits for it rather than being refused as an unknown secret (a revived
 * supervisor listens before it has read tmux, and its windows' hooks keep reporting), and a
 * request waits for it rather than being answered from an empty list.
 */
export async function serveSocket(sup: Supervisor, path: string, log: Logger, known: Promise<unknown> = Promise.resolve(), snoozeFile: string | null = null): Promise<SocketServer> {
  const server = await createSocketServer({
    path,
    // herdr's clients read ping's version as the server's build: nerdr's own
    version: NERDR_VERSION,
    authenticate: async (secret) => {
      await known;
      return sup.windowBySecret(secret);
    },
    log: (m) => log('info', m),
    onHook: (h) => applyHook(sup, h),
    onReport: (r) => sup.onReport(r.window, r),
  });
  // the same for nerdr's own methods: `ls` before the windows are found would answer no agent at
  // all. `info` answers at once (it says whether the supervisor is ready), and so does a `stop`
  // with no caller; one from an agent window waits, so that its window is known and refused.
  const gated: Pick<SocketServer, 'handle'> = {
    handle: (method, handler) =>
      server.handle(method, async (params, ctx) => {
        const caller = (params as { caller?: unknown } | null)?.caller;
        if (!ANSWER_WHILE_STARTING.has(method) || (caller !== undefined && caller !== null)) await known;
        return handler(params, ctx);
      }),
  };
  registerMethods(gated, SUPERVISOR_METHODS, supervisorHost(sup, { socketPath: path, snoozeFile }));
  return server;
}

/** nerdr's methods that answer while the supervisor is still finding its windows. */
const ANSWER_WHILE_STARTING = new Set(['nerdr.info', 'nerdr.stop']);

/**
 * The hook spool (src/supervisor/spool.ts): the same secrets and the same sink as the socket.
 * Started once the windows are known, so what was left while no supervisor ran finds its window.
 */
export async function readSpool(sup: Supervisor, dir: string, log: Logger): Promise<SpoolReader<WatchedAgent>> {
  const reader = new SpoolReader<WatchedAgent>({
    dir,
    authenticate: (secret) => sup.windowBySecret(secret),
    apply: (h, name) => sup.applySpooled(h.window, name, () => applyHook(sup, h)),
    applyReport: (r, name) =>
      sup.applySpooled(r.window, name, () => {
        try {
          sup.onReport(r.window, r);
        } catch (err) {
          // refused as the socket would have answered it (a metadata limit): nothing to apply
          log('info', `spool: report ${name} refused: ${(err as Error).message}`);
        }
      }),
    deleted: (a, names) => sup.spoolDeleted(a, names),
    startedAt: (a) => processStartMs(a.panePid),
    describe: (a) => `${a.name} (${a.windowId})`,
    log,
    clock: sup.clock,
  });
  await reader.start();
  return reader;
}

/**
 * Runs the supervisor of the tmux server at `tmuxSocket` until it is stopped. `holder`: in tmux's
 * holder pane, which revives it. `onReady`: called once, when it answers ready.
 */
export async function runSupervisor(tmuxSocket: string, opts: { foreground: boolean; holder?: boolean; onReady?: () => void }): Promise<void> {
  await checkTmuxVersion();
  ensureStateDir();
  const files = serverFiles(tmuxSocket);
  const log = fileLogger(files.log, opts.foreground);
  if (!(await serverRunning(tmuxSocket))) {
    throw new NerdrError(`no tmux server is running at ${tmuxSocket}`, 'start tmux first, or name the right server with -L / -S');
  }
  // in tmux's holder pane (src/supervisor/holder.ts): armed at once, so even a crash during the
  // start is revived; a crash loop waits before it runs again
  const holderPane = opts.holder ? process.env.TMUX_PANE : undefined;
  if (holderPane) {
    log('info', `supervisor ${process.pid} starting in tmux's holder pane ${holderPane}`);
    const armed = await tmux(tmuxSocket, armArgs(holderPane, holderEnvironment(process.env), await checkTmuxVersion()));
    if (armed.code !== 0) log('warn', `cannot arm the holder pane ${holderPane}: ${armed.stderr.trim()}`);
    const starts = readStarts(files.starts);
    const delay = startDelay(starts, Date.now());
    writeStarts(files.starts, withStart(starts, Date.now(), process.pid));
    if (delay) {
      log('warn', `${delay.why}; waiting ${Math.round(delay.ms / 1000)} s before starting again (see \`nerdr doctor\`)`);
      await new Promise((r) => setTimeout(r, delay.ms));
      writeStarts(files.starts, withReady(readStarts(files.starts), process.pid, Date.now()));
    }
  }
  const lock = tryLock(files.lock);
  if (!lock.ok) {
    if (holderPane) {
      // another supervisor runs (a race of two starts): this pane closes for good
      log('info', `supervisor ${process.pid}: pid ${lock.owner} already runs for this tmux server; this holder closes`);
      writeStarts(files.starts, withEnd(readStarts(files.starts), process.pid, Date.now(), true, 'another supervisor runs'));
      await tmux(tmuxSocket, disarmArgs(holderPane));
      process.exit(0);
    }
    throw new NerdrError(`a supervisor is already running for this tmux server (pid ${lock.owner})`, 'use `nerdr supervisor status` or `nerdr supervisor restart`');
  }
  /** How this process ends, in its start record: on purpose (clean), or a crash tmux revives. */
  const recordEnd = (clean: boolean, why: string, fix?: string): void => {
    if (holderPane) writeStarts(files.starts, withEnd(readStarts(files.starts), process.pid, Date.now(), clean, why, fix));
  };

  const loaded = loadConfig(configDir());
  for (const p of loaded.problems) log('warn', formatProblem(loaded.path, p));
  const manifests = new ManifestRegistry({ onWarning: (m) => log('warn', m) });
  const sup = new Supervisor({ tmuxSocket, log, installLights: loaded.config.lights.auto_install && process.env.NERDR_NO_LIGHTS !== '1' && !existsSync(lightsOffFile()),
    manifests,
    stateDir: files.dir,
    socketPath: files.socket,
    notify: loaded.config.notify,
    lifecycle: loaded.config.lifecycle,
  });
  // [[on]] (docs/on-events.md): sees every change from the first scan on
  // a blocked event carries the inbox's prompt id (a push's button opens that row of `nerdr web`)
  const onEvents = watchOnEvents(sup, files, configDir(), log, (a) => promptOf(inboxWindow(sup, a)).id);
  manifests.on('change', (file: string) => {
    log('info', `manifests changed (${file}); re-evaluating`);
    sup.reevaluateAll();
  });
  await manifests.watch().catch((err: Error) => log('warn', `cannot watch manifest folders: ${err.message}`));
  let server: SocketServer | null = null;
  let spool: SpoolReader<WatchedAgent> | null = null;
  let fleet: Fleet | null = null;
  let finishing = false;
  /** `revive`: a crash, which tmux answers with a new supervisor; otherwise the holder pane closes. */
  const finish = async (code: number, revive = false, why = '', fix?: string): Promise<void> => {
    if (finishing) return;
    finishing = true;
    recordEnd(!revive, why || (revive ? 'crashed' : 'stopped'), fix);
    if (holderPane && !revive) await tmux(tmuxSocket, disarmArgs(holderPane)).catch(() => undefined);
    fleet?.stop();
    onEvents.stop();
    await spool?.close().catch(() => undefined);
    await sup.stop().catch(() => undefined);
    await server?.close().catch(() => undefined);
    await manifests.close().catch(() => undefined);
    lock.release();
    log('info', `supervisor ${process.pid} exits`);
    process.exit(code);
  };
  sup.on('exit', () => void finish(0, sup.stopCause === 'lost-tmux', sup.stopCause === 'lost-tmux' ? 'lost its tmux control client' : ''));
  process.on('SIGTERM', () => void finish(0));
  process.on('SIGINT', () => void finish(0));
  // in tmux's holder pane a hangup is the pane closing: a `supervisor stop` that landed while tmux
  // was reviving this one closed it (CI saw the revived supervisor run on without a holder);
  // elsewhere a closed terminal is no reason to stop
  process.on('SIGHUP', () => {
    if (holderPane) void finish(0, false, 'its holder pane was closed');
  });
  process.on('uncaughtException', (err) => {
    log('error', `uncaught: ${err.stack ?? err.message}`);
    void finish(1, true, `uncaught: ${err.message.split('\n')[0]!.slice(0, 200)}`);
  });

  let windowsKnown!: () => void;
  const known = new Promise<void>((resolve) => (windowsKnown = resolve));
  try {
    server = await serveSocket(sup, files.socket, log, known, files.snoozes);
    await sup.start();
    windowsKnown();
  } catch (err) {
    const fix = err instanceof NerdrError ? err.fix : undefined;
    log('error', `start failed: ${(err as Error).message}${fix ? `; fix: ${fix}` : ''}`);
    // the CLI waiting for this start says the reason and the fix at once (src/cli/context.ts)
    await finish(1, true, `start failed: ${(err as Error).message.split('\n')[0]!.slice(0, 200)}`, fix);
    return;
  }
  try {
    spool = await readSpool(sup, files.spool, log);
  } catch (err) {
    // hooks still reach the socket through `nerdr hook`; the shell hook's events wait on disk
    log('error', `cannot read the hook spool ${files.spool}: ${(err as Error).message}`);
  }
  if (holderPane) {
    // its own pane is no agent (and prints nothing: holderArgv sends its output to the log)
    sup.run(command('refresh-client', '-A', `${holderPane}:off`)).catch((err: Error) => log('warn', `holder pane: ${err.message}`));
  }
  reportToHerdr(sup, files.socket, log);
  fleet = followFleet(sup, server, log);
  log('info', `supervisor ${process.pid} ready on ${files.socket}`);
  opts.onReady?.();
  // every manifest, compiled to say what is wrong with it: after the start (a revival must be ready
  // within 2 s), the agents found so far having compiled theirs
  for (const p of manifests.problems()) log('warn', `manifest ${p.path}: ${p.reason}`);
}

/** Inside a herdr pane: its sidebar shows nerdr's most urgent agent (src/supervisor/herdr-uplink.ts). */
function reportToHerdr(sup: Supervisor, socket: string, log: Logger): void {
  const target = herdrTarget(process.env, nerdrBin, socket);
  if (!target) return;
  const up = new HerdrUplink(target, (m) => log('warn', m));
  let timer: Timer | null = null;
  const push = (): void => {
    timer = null;
    up.update([...sup.agents.values()].map((a) => agentRow(a, sup.messages, sup.conflicts)));
  };
  sup.on('change', () => void (timer ??= sup.clock.after(100, push)));
  push();
  log('info', `inside herdr (pane ${target.pane}): reporting the most urgent agent with ${target.bin} pane report-agent`);
  // herdr focusing the pane (with focus-events on): the client goes to what needs the user
  if (!sup.tmux.clientFocusHook) {
    log('info', `inside herdr: switching to the most urgent agent when the pane gets focus needs tmux 3.3 (client-focus-in); this is ${sup.tmuxVersion}`);
    return;
  }
  const focus = new FocusSwitch();
  sup.on('subscription', (name, value) => {
    if (name !== FOCUS_SUBSCRIPTION) return;
    const go = focus.focused(value, [...sup.agents.values()].map((a) => agentRow(a, sup.messages, sup.conflicts)));
    if (!go) return;
    if ('stay' in go) return log('info', `inside herdr: focus of ${go.client}; staying: ${go.stay}`);
    const a = [...sup.agents.values()].find((x) => x.id === go.agent.id);
    const link = a?.links[0];
    if (!a || !link) return;
    sup.run(command('switch-client', '-c', go.client, '-t', `${link.sessionId}:${a.windowId}`)).then(
      () => log('info', `inside herdr: focus; switched ${go.client} to ${a.name} (${a.state})`),
      (err: Error) => log('warn', `inside herdr: could not switch ${go.client} to ${a.name}: ${err.message}`),
    );
  });
  const run = (c: string[]): void => void sup.run(command(c[0]!, ...c.slice(1))).catch((err: Error) => log('warn', `inside herdr: ${c[0]} failed: ${err.message}`));
  for (const c of focusWatchCommands()) run(c);
  // a subscription is the client's: made again on each new one, and when its window is made again
  run(focusSubscription(sup.homeWindow));
  sup.on('anchored', (anchor) => run(focusSubscription(anchor)));
}

/**
 * The fleet (docs/fleet.md): the agents of the hosts in config.toml [fleet], followed over ssh,
 * summed up in @nerdr_fleet (which the status-right summary reads), answered on `nerdr.fleet`.
 * `nerdr.fleet-reload` reads config.toml again (after `nerdr fleet add` / `rm`).
 */
export function followFleet(sup: Supervisor, server: SocketServer, log: Logger): Fleet {
  let timer: Timer | null = null;
  let shown: string | null = null;
  const said = new Map<string, string>();
  const paint = (): void => {
    timer = null;
    const hosts = fleet.hosts();
    const now = sup.clock.now();
    for (const h of hosts) {
      const line = h.state === 'connected' ? 'connected' : h.error ? `${h.state}: ${h.error.message}` : h.state;
      if (said.get(h.name) !== line && h.state !== 'connecting') log(h.state === 'connected' ? 'info' : 'warn', `fleet ${h.name}: ${line}`);
      said.set(h.name, line);
    }
    const text = fleetSummaryText(hosts, now, sup.looks?.looks, sup.looks?.bg);
    sup.setSummarySuffix(hosts.length > 0 ? '#{E:@nerdr_fleet}' : '');
    if (text !== shown) {
      shown = text;
      sup.run(command('set-option', '-g', '@nerdr_fleet', text)).catch((err: Error) => log('warn', `fleet: cannot set @nerdr_fleet: ${err.message}`));
    }
    // a stale host's age moves on: repaint while one is stale
    if (hosts.some((h: HostStatus) => h.state === 'stale')) timer ??= sup.clock.after(15_000, paint);
  };
  const fleet = new Fleet(sup.clock, () => void (timer ??= sup.clock.after(50, paint)));
  const load = (): void => {
    const loaded = loadConfig(configDir());
    fleet.configure(loaded.config.fleet);
  };
  load();
  if (fleet.size > 0) log('info', `fleet: following ${fleet.size} host(s)`);
  registerMethods(server, [fleetMethod, fleetReload], { hosts: () => fleet.hosts(), now: () => sup.clock.now(), reload: load });
  return fleet;
}
