// The supervisor's own socket methods: what the CLI asks for. Each is small: find, act, answer.

import path from 'node:path';
import { RpcError } from './socket/errors.js';
import type { SocketServer } from './socket/index.js';
import type { Supervisor } from './supervisor.js';
import type { WatchedAgent } from './agent.js';
import type { ActiveWindow } from './active.js';
import { MAX_MESSAGE_BYTES } from './messages.js';
import type { Timer } from './clock.js';
import os from 'node:os';
import { z } from 'zod';
import type { AgentRow } from '../protocol/index.js';
import { savedSessionSchema } from '../store/sessions.js';
import { planRestore } from '../store/restore-plan.js';
import { onPath, planLaunch } from '../integrations/plan.js';
import { dryRunResults, isDir, liveState, restoreSessions, type RestoreEnv, type RestoreHost } from './restore.js';
import { childLineage, controlFix, mayControl, type ControlAction, type ControlNode } from './control.js';
import { loadConfig } from '../config.js';
import { EventFeed } from './events.js';
import type { Receipt } from '../store/queue.js';
import { configDir } from '../paths.js';
import { quote } from '../tmux/quote.js';


export function agentRow(a: WatchedAgent, sup: Supervisor): AgentRow {
  const first = a.links[0];
  const v = a.arbiter.view();
  const q = sup.messages.queue(a);
  return {
    queue: q.messages.length,
    queueStalled: q.stalledAt !== null,
    note: a.note,
    args: a.args,
    background: v.background,
    subagents: v.subagents,
    backgroundTasks: v.backgroundTasks,
    conversationId: v.conversationId,
    conversationFrom: v.conversationFrom,
    seen: a.state === 'done' || a.state === 'idle' ? v.seen : null,
    name: a.name,
    agent: a.agent,
    reportedAgent: v.reportedAgent,
    title: v.presentation.title,
    displayAgent: v.presentation.displayAgent,
    stateLabel: v.presentation.stateLabels[a.state] ?? null,
    stateLabels: v.presentation.stateLabels,
    tokens: v.presentation.tokens,
    state: a.state,
    stateSince: a.stateSince,
    session: first?.session ?? '',
    sessions: a.links.map((l) => l.session),
    window: a.windowId,
    windowIndex: first ? first.index : null,
    pane: a.paneId,
    cwd: a.cwd,
    id: a.id,
    exitStatus: a.dead ? a.deadStatus : null,
    parent: a.lineage[0] ?? null,
    worktree: a.worktree,
    branch: a.branch,
    base: a.base,
  };
}

function obj(params: unknown): Record<string, unknown> {
  return params && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
}

function str(p: Record<string, unknown>, key: string, required = false): string {
  const v = p[key];
  if (typeof v === 'string') return v;
  if (required) throw new RpcError('invalid_params', `${key} must be a string`);
  return '';
}

/** A target names an agent window by name, window id (@3) or pane id (%7). */
export function findTarget(sup: Supervisor, target: string): WatchedAgent {
  const all = [...sup.agents.values()];
  const byId = all.filter((a) => a.paneId === target || a.windowId === target || a.id === target);
  if (byId.length === 1) return byId[0]!;
  const byName = all.filter((a) => a.name === target);
  if (byName.length === 1) return byName[0]!;
  const list = all.map((a) => `${a.name} (${a.windowId})`).join(', ') || 'none running';
  if (byName.length > 1) {
    throw new RpcError('ambiguous_target', `"${target}" names ${byName.length} agents; use a window id: ${byName.map((a) => a.windowId).join(', ')}`);
  }
  throw new RpcError('unknown_target', `no agent "${target}"; agents: ${list}`);
}

function record(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
}

/** `{path, branch, base}` of `nerdr new --worktree`: an absolute path and two strings, or nothing. */
function worktreeParam(v: unknown): { path: string; branch: string; base: string } | null {
  if (v === undefined || v === null) return null;
  const w = obj(v);
  if (typeof w.path !== 'string' || !path.isAbsolute(w.path) || typeof w.branch !== 'string' || !w.branch || typeof w.base !== 'string') {
    throw new RpcError('invalid_params', 'worktree must be {path (absolute), branch, base}');
  }
  return { path: w.path, branch: w.branch, base: w.base };
}

/** The quiet rule's wait of `nerdr new --cmd` (ms, 0 = off), or nothing for the default. */
function idleAfterParam(v: unknown): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 999_999_999) throw new RpcError('invalid_params', 'idleAfterMs must be a whole number of milliseconds (0: off)');
  return v;
}

function setupParam(v: unknown): { command: string; hint: string } | null {
  if (v === undefined || v === null) return null;
  const s = obj(v);
  if (typeof s.command !== 'string' || !s.command.trim()) throw new RpcError('invalid_params', 'setup must be {command, hint}');
  return { command: s.command, hint: typeof s.hint === 'string' ? s.hint : '' };
}

const node = (a: WatchedAgent): ControlNode => ({ id: a.id, name: a.name, windowId: a.windowId, lineage: a.lineage });

/**
 * The agent window a request comes from: `caller` is the NERDR_TAB of the shell that sent it
 * (the CLI passes its own); null for a person's shell. A secret that names no window (its window
 * is gone, or it was inherited by a shell outside nerdr) counts as a person's: an agent could
 * leave NERDR_TAB out as well, so refusing it would protect nothing.
 */
function callerOf(sup: Supervisor, p: Record<string, unknown>): WatchedAgent | null {
  const secret = str(p, 'caller');
  return secret ? sup.windowBySecret(secret) : null;
}

/** Throws `not_permitted` when the caller (an agent window) may not act on the target. */
function checkControl(sup: Supervisor, caller: WatchedAgent | null, target: WatchedAgent, action: ControlAction): void {
  if (!caller) return;
  const loaded = loadConfig(configDir());
  const v = mayControl(node(caller), node(target), action, loaded.config.control);
  if (!v.ok) throw new RpcError('not_permitted', v.reason, false, controlFix(loaded.path));
}

/**
 * A message for a window whose program nerdr cannot read (no manifest knows it, and the quiet
 * rule cannot say whether it waits): refused at once rather than queued for ever.
 */
function unknowableError(a: WatchedAgent, why: string): RpcError {
  const manifest = `a manifest of your own, ${path.join(configDir(), 'agent-detection')}/<program>.toml (docs/manifest-format.md)`;
  const fix = a.idleAfterMs === 0
    ? `start it with the quiet rule on (nerdr new --cmd … --idle-after 3), or give the program ${manifest}`
    : `send it once it waits at a prompt (nerdr explain ${a.name} says when), or give the program ${manifest}`;
  return new RpcError('state_unknowable', `${a.name} (${a.windowId}): ${why}; the message was not queued`, false, fix);
}

export function registerApi(server: SocketServer, sup: Supervisor, socketPath: string): void {
  server.handle('nerdr.ls', () => ({ agents: [...sup.agents.values()].map((a) => agentRow(a, sup)) }));

  server.handle('nerdr.explain', (params) => {
    const a = findTarget(sup, str(obj(params), 'target', true));
    const d = a.lastDetection;
    return {
      ...agentRow(a, sup),
      arbiter: a.arbiter.view(),
      detection: d && {
        at: d.at,
        state: d.result.state,
        rule: d.result.rule,
        fallbackReason: d.result.fallbackReason ?? null,
        blank: d.result.blank,
        visibleIdle: d.result.visibleIdle,
        visibleBlocker: d.result.visibleBlocker,
        visibleWorking: d.result.visibleWorking,
        skip: d.result.skip,
        matches: d.result.matches,
        disabledRules: d.result.disabledRules,
        manifest: d.manifest,
      },
      now: sup.clock.now(),
    };
  });

  // A stream of the agent list: the current rows at once, then again after every change
  // (coalesced), until the client hangs up. The dashboard lives on this. With `active: true`
  // it also carries each user session's current window (`active` events, on a switch): the
  // review panel follows that.
  server.handle('nerdr.subscribe', async (params, ctx) => {
    const stream = ctx.stream();
    const follow = obj(params).active === true;
    let timer: Timer | null = null;
    const push = (): void => {
      timer = null;
      if (!stream.event('agents', { agents: [...sup.agents.values()].map((a) => agentRow(a, sup)) })) stop();
    };
    const onChange = (): void => {
      timer ??= sup.clock.after(100, push);
    };
    const onActive = (list: ActiveWindow[]): void => {
      if (!stream.event('active', { active: list })) stop();
    };
    let stopped = false;
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      sup.off('change', onChange);
      timer?.cancel();
      if (follow) {
        sup.off('active', onActive);
        sup.active.release();
      }
    };
    sup.on('change', onChange);
    if (follow) sup.on('active', onActive);
    stream.signal.addEventListener('abort', stop);
    const active = follow ? { active: await sup.active.follow() } : {};
    return { type: 'subscription_started', agents: [...sup.agents.values()].map((a) => agentRow(a, sup)), ...active };
  });

  // `nerdr events`: the rows, then a line per change (src/supervisor/events.ts), until the client
  // hangs up. With a target, that window only; the stream ends when it closes.
  server.handle('nerdr.events', (params, ctx) => {
    const p = obj(params);
    const only = str(p, 'target') ? findTarget(sup, str(p, 'target')).paneId : null;
    const stream = ctx.stream();
    const rows = () =>
      [...sup.agents.values()].filter((a) => only === null || a.paneId === only).map((a) => ({ pane: a.paneId, row: agentRow(a, sup) }));
    const feed = new EventFeed(
      { send: (line) => stream.send(line), pending: () => stream.pending(), drained: (fn) => stream.drained(fn) },
      rows,
      () => sup.clock.now(),
    );
    const onChange = (a: WatchedAgent): void => {
      if (only !== null && a.paneId !== only) return;
      const alive = sup.agents.get(a.paneId) === a;
      feed.update(a.paneId, alive ? agentRow(a, sup) : null);
      if (!alive && only !== null) stream.end();
    };
    sup.on('change', onChange);
    stream.signal.addEventListener('abort', () => void sup.off('change', onChange));
    return { type: 'events_started', agents: feed.start() };
  });

  server.handle('nerdr.send', (params) => {
    const p = obj(params);
    const a = findTarget(sup, str(p, 'target', true));
    checkControl(sup, callerOf(sup, p), a, 'send to');
    const text = str(p, 'message', true);
    if (text === '') throw new RpcError('invalid_params', 'the message is empty');
    if (Buffer.byteLength(text) > MAX_MESSAGE_BYTES) throw new RpcError('too_large', `a message may hold at most ${MAX_MESSAGE_BYTES} bytes`);
    if (a.unknowable !== null && !a.dead) throw unknowableError(a, a.unknowable);
    const r = sup.messages.enqueue(a, text);
    const q = a.arbiter.view().quiet;
    // a program the quiet rule reads: what "idle" means for it
    const waitsFor = q ? { waitsFor: `its output is quiet for ${q.idleAfterMs / 1000} s with the cursor on an input line` } : {};
    return { target: a.windowId, ...r, state: a.state, exited: a.dead, ...waitsFor };
  });

  // `nerdr send --retry ID`: a message that left the queue because it may have been typed in
  // (the supervisor stopped while typing it) is queued again, as a new message, for its window.
  server.handle('nerdr.retry', (params) => {
    const p = obj(params);
    const id = str(p, 'id', true);
    const caller = callerOf(sup, p);
    const r = sup.messages.retry(id, (agentId) => {
      const a = [...sup.agents.values()].find((x) => x.id === agentId) ?? null;
      if (a) checkControl(sup, caller, a, 'send to');
      return a;
    });
    return { target: r.agent.windowId, id: r.id, position: r.position, state: r.agent.state, exited: r.agent.dead, retried: id };
  });

  // What became of a queued message (`nerdr send --status ID`); with follow, a stream of its
  // receipt each time it moves on (`nerdr send --wait`), ending once nothing more is recorded.
  server.handle('nerdr.receipt', (params, ctx) => {
    const p = obj(params);
    const id = str(p, 'id', true);
    const found = sup.messages.receipt(id);
    if (!found) throw new RpcError('unknown_message', `no message ${id} (receipts are kept for a day, the last 20 per window)`);
    const win = [...sup.agents.values()].find((a) => a.id === found.agentId);
    const answer = { receipt: found.receipt, window: win?.windowId ?? null, name: win?.name ?? null };
    if (p.follow !== true || found.receipt.closedAt !== null || !win) return answer;
    const stream = ctx.stream();
    const onReceipt = (a: WatchedAgent, r: Receipt): void => {
      if (r.id !== id) return;
      stream.event('receipt', r);
      if (r.closedAt !== null) stream.end();
    };
    sup.on('receipt', onReceipt);
    stream.signal.addEventListener('abort', () => void sup.off('receipt', onReceipt));
    return answer;
  });

  // Resolves when the agent that occupies the window now reaches one of the states; fails when
  // that agent exits or is replaced, or its window goes away. Event-driven: no polling.
  server.handle('nerdr.wait', (params, ctx) => {
    const p = obj(params);
    const a = findTarget(sup, str(p, 'target', true));
    const until = Array.isArray(p.until) && p.until.length > 0 ? p.until.map(String) : ['done', 'idle', 'blocked'];
    const timeoutMs = typeof p.timeoutMs === 'number' && p.timeoutMs > 0 ? p.timeoutMs : 0;
    const generation = a.generation;
    const row = () => agentRow(a, sup);
    return new Promise((resolve, reject) => {
      let timer: Timer | null = null;
      const done = (fn: () => void): void => {
        sup.off('change', check);
        timer?.cancel();
        fn();
      };
      const check = (): void => {
        if (sup.agents.get(a.paneId) !== a) return done(() => reject(new RpcError('agent_gone', `the window of ${a.name} is gone`)));
        if (a.generation !== generation) return done(() => reject(new RpcError('agent_replaced', `the agent in ${a.name} was restarted`)));
        if (until.includes(a.state)) return done(() => resolve({ target: a.windowId, state: a.state, agent: row() }));
        if (a.dead) return done(() => reject(new RpcError('agent_exited', `${a.name} exited (status ${a.deadStatus || '?'}) before reaching ${until.join('|')}`)));
      };
      sup.on('change', check);
      ctx.signal.addEventListener('abort', () => done(() => reject(new RpcError('aborted', 'the client went away'))));
      if (timeoutMs) timer = sup.clock.after(timeoutMs, () => done(() => reject(new RpcError('timeout', `timed out after ${timeoutMs / 1000} s; ${a.name} is ${a.state}`))));
      check();
    });
  });

  // Starts a new program in an agent's pane (same window, same options): what `nerdr restore`
  // does when resuming a conversation fails at once.
  server.handle('nerdr.respawn', async (params) => {
    const p = obj(params);
    const a = findTarget(sup, str(p, 'target', true));
    const argv = Array.isArray(p.argv) ? p.argv.map(String) : [];
    if (argv.length === 0) throw new RpcError('invalid_params', 'argv must name a program');
    checkControl(sup, callerOf(sup, p), a, 'restart');
    await sup.respawn(a, {
      argv,
      env: record(p.env) as Record<string, string>,
      callerEnv: record(p.callerEnv),
      conversationId: str(p, 'conversationId'),
      note: str(p, 'note'),
    });
    return { target: a.windowId };
  });

  server.handle('nerdr.stop-agent', async (params) => {
    const p = obj(params);
    const a = findTarget(sup, str(p, 'target', true));
    checkControl(sup, callerOf(sup, p), a, 'stop');
    await sup.closeWindow(a);
    return { target: a.windowId, stopped: true };
  });

  server.handle('nerdr.status', () => {
    const counts: Record<string, number> = {};
    for (const a of sup.agents.values()) counts[a.state] = (counts[a.state] ?? 0) + 1;
    return { counts, total: sup.agents.size };
  });

  server.handle('nerdr.read', (params) => {
    const p = obj(params);
    const a = findTarget(sup, str(p, 'target', true));
    if (!a.mirror) throw new RpcError('not_ready', `${a.name} has no screen yet; try again in a moment`);
    const lines = typeof p.lines === 'number' && p.lines > 0 ? Math.floor(p.lines) : undefined;
    // --lines N means the last N lines that hold something: blank rows below are not content
    const span = lines === undefined ? undefined : Math.max(lines, a.mirror.rows);
    let text = p.ansi === true ? a.mirror.renderAnsi(span) : a.mirror.renderText(span);
    if (lines !== undefined) text = text.split('\n').slice(0, -1).slice(-lines).join('\n') + (text ? '\n' : '');
    return { target: a.windowId, text };
  });

  server.handle('nerdr.info', () => ({
    pid: process.pid,
    ready: sup.ready,
    client: sup.clientName,
    clientPid: sup.clientPid,
    tmuxVersion: sup.tmuxVersion,
    agents: sup.agents.size,
    uptimeMs: Math.round(process.uptime() * 1000),
    socket: socketPath,
  }));

  // Which windows the caller may stop, send to or switch to (`nerdr focus` and `nerdr next` ask
  // before they switch): every one for a person or with [agents] control = "all".
  server.handle('nerdr.may', (params) => {
    const p = obj(params);
    const caller = callerOf(sup, p);
    const action = (['stop', 'send to', 'focus'] as const).find((x) => x === p.action) ?? 'focus';
    const loaded = loadConfig(configDir());
    if (!caller || loaded.config.control === 'all') return { all: true, windows: [...sup.agents.values()].map((a) => a.windowId) };
    const windows = [...sup.agents.values()].filter((a) => mayControl(node(caller), node(a), action, 'own').ok).map((a) => a.windowId);
    return { all: false, caller: caller.windowId, windows, fix: controlFix(loaded.path) };
  });

  server.handle('nerdr.stop', () => {
    // after the answer is on its way
    sup.clock.after(10, () => void sup.stop());
    return { stopping: true };
  });

  // `nerdr restore`: the saved sessions the CLI loaded, restored here (so a Ctrl-C of the CLI
  // leaves no window unchecked). With dryRun: the plan, nothing done. Otherwise a stream: a
  // `window` event per window once it is settled, `warning`s, then `done` with all of them.
  server.handle('nerdr.restore', async (params, ctx) => {
    const p = obj(params);
    const parsed = z.array(savedSessionSchema).safeParse(p.sessions);
    if (!parsed.success) throw new RpcError('invalid_params', `sessions: ${parsed.error.issues[0]?.message ?? 'not saved sessions'}`);
    const saved = parsed.data;
    const callerEnv = Object.fromEntries(Object.entries(record(p.callerEnv)).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const host = restoreHost(sup);
    const warnings: ((m: string) => void)[] = [];
    const env: RestoreEnv = {
      callerEnv,
      home: callerEnv.HOME || os.homedir(),
      plan: (agent, args, cwd, hooks) => planLaunch(agent, args, cwd, hooks, (m) => env.warn(m)),
      onPath: (program) => onPath(program, callerEnv.PATH ?? process.env.PATH ?? ''),
      isDir,
      warn: (m) => {
        sup.log('warn', `restore: ${m}`);
        for (const w of warnings) w(m);
      },
    };
    if (p.dryRun === true) {
      const plans = planRestore(saved, await liveState(host));
      return { dryRun: true, sessions: plans.map((x) => ({ session: x.session, create: x.create })), windows: await dryRunResults(plans, env) };
    }
    const stream = ctx.stream();
    warnings.push((m) => void stream.event('warning', { message: m }));
    void restoreSessions(host, env, saved, (r) => void stream.event('window', r)).then(
      (out) => {
        stream.event('done', out);
        stream.end();
      },
      (err: Error) => {
        sup.log('error', `restore failed: ${err.message}`);
        stream.event('error', { message: err.message });
        stream.end();
      },
    );
    return { type: 'restore_started', sessions: saved.map((x) => x.session) };
  });

  server.handle('nerdr.new', async (params) => {
    const p = obj(params);
    const argv = Array.isArray(p.argv) ? p.argv.map(String) : [];
    if (argv.length === 0) throw new RpcError('invalid_params', 'argv must name a program');
    const watched = p.watched !== false;
    const agent = str(p, 'agent') || 'unknown';
    const cwd = str(p, 'cwd') || process.env.HOME || '/';
    if (!path.isAbsolute(cwd)) throw new RpcError('invalid_params', 'cwd must be an absolute path');
    const conversation = str(p, 'conversationId');
    const caller = callerOf(sup, p);
    const created = await sup.createWindow({
      lineage: childLineage(caller ? node(caller) : null),
      index: typeof p.index === 'number' && Number.isInteger(p.index) && p.index >= 0 ? p.index : undefined,
      userArgs: Array.isArray(p.userArgs) ? p.userArgs.map(String) : [],
      agent,
      name: str(p, 'name'),
      cwd,
      session: str(p, 'session', true),
      argv,
      callerEnv: record(p.callerEnv),
      env: record(p.env) as Record<string, string>,
      watched,
      worktree: worktreeParam(p.worktree),
      setup: setupParam(p.setup),
      conversation: conversation ? { id: conversation, from: p.conversationFrom === 'guess' ? 'guess' : 'launch' } : null,
      note: str(p, 'note'),
      idleAfterMs: idleAfterParam(p.idleAfterMs),
    });
    return { window: created.window, pane: created.pane, id: created.id, agent };
  });
}

/** The supervisor as the restore sees it (supervisor/restore.ts). */
function restoreHost(sup: Supervisor): RestoreHost<WatchedAgent> {
  return {
    clock: sup.clock,
    run: (cmd) => sup.run(cmd),
    live: () =>
      [...sup.agents.values()].map((a) => {
        const row = agentRow(a, sup);
        return { session: row.session, index: row.windowIndex, agent: row.agent, cwd: row.cwd, conversationId: row.conversationId, exited: row.state === 'exited' };
      }),
    agent: (pane) => sup.agents.get(pane),
    // the screen and some history: tmux's "Pane is dead" line can scroll a short message out of view
    screen: async (a) => {
      try {
        return await sup.run(`capture-pane -p -J -S -200 -t ${quote(a.paneId)}`);
      } catch {
        return a.mirror?.renderText() ?? '';
      }
    },
    createWindow: (spec) => sup.createWindow(spec),
    respawn: (a, spec) => sup.respawn(a, spec),
    requeue: (a, m) => sup.messages.requeue(a, m),
    onChange: (fn) => {
      sup.on('change', fn);
      return () => void sup.off('change', fn);
    },
  };
}
