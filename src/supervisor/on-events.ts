// `[[on]]` in config.toml: when an agent enters a state (blocked, done, exited; a message queue
// stalls), run the user's commands with the event as JSON on stdin and as NERDR_EVENT_*
// variables, at most once per state entry. An entry is its window, its state and when it began;
// the last one fired per window is kept on disk (on-events-store.ts), so a restarted supervisor,
// whose windows begin their states anew, does not fire again for a window still in the state it
// fired for. Runs go to a bounded pool (on-events-run.ts). docs/on-events.md.

import { statSync } from 'node:fs';
import { ON_EVENTS, loadConfig, problemText, type LoadedConfig, type OnEventKind, type OnRule } from '../config.js';
import type { AgentRow } from '../protocol/index.js';
import { visible } from '../text.js';
import type { Clock } from './clock.js';
import type { Logger } from './log.js';
import { describeOutcome, RunPool, spawnProcess, type RunOutcome, type Spawner } from './on-events-run.js';
import { FiredStore, onFiles, recordFailure, type OnFailure } from './on-events-store.js';
import type { Supervisor } from './supervisor.js';
import type { WatchedAgent } from './agent.js';
import { agentRow } from './rows.js';

/** Screen lines a blocked event carries (the bottom ones that hold something). */
export const EVENT_LINES = 15;

/** A window as `[[on]]` watches it: read on every change, so only fields, nothing computed. */
export interface OnSubject {
  /** nerdr's id of the window (kept by tmux, the same after a supervisor restart). */
  id: string;
  window: string;
  agent: string;
  session: string;
  state: string;
  stateSince: number;
  /** When its message queue stalled; null while it flows. */
  stalledAt: number | null;
}

/** What an event tells beyond the subject; built only when a rule will run. */
export interface OnDetail {
  row: AgentRow;
  /** The screen's rows, top to bottom (blocked only). */
  screen: () => string[];
  /** The inbox's id of the waiting dialog, when nerdr can tell it (the web page's `#row-<id>`). */
  promptId: string | null;
}

/** The JSON on the command's stdin. */
export interface OnEvent {
  kind: OnEventKind;
  /** window|state|since: the same key never runs twice. */
  key: string;
  at: number;
  window: string;
  name: string;
  agent: string;
  session: string;
  state: string;
  since: number;
  id: string;
  pane: string;
  cwd: string;
  promptId: string | null;
  /** blocked: the screen's last lines, control characters shown (^[); otherwise []. */
  lines: string[];
  /** stalled: when the queue stalled and how many messages wait. */
  stalledAt: number | null;
  queue: number;
  /** exited: tmux's word on how it ended. */
  exitStatus: string | null;
  /** limited: the agent's words and when its limit resets (epoch ms, null when unknown); otherwise null. */
  limit: { words: string; resetAt: number | null } | null;
  /** The window as `nerdr ls --json` prints it. */
  row: AgentRow;
}

export interface OnEventsDeps {
  clock: Clock;
  /** The rules now (read when config.toml changes). */
  rules: () => OnRule[];
  fired: FiredStore;
  log: Logger;
  /** Where failures go for doctor. */
  failed: (f: OnFailure) => void;
  spawn?: Spawner;
  /** The environment commands start from (default: the supervisor's). */
  env?: NodeJS.ProcessEnv;
  max?: number;
  queueMax?: number;
}

interface Tag {
  event: OnEvent;
  rule: OnRule;
}

type Track = 'state' | 'stalled';

export class OnEvents {
  /** The entry each window and track is in, as this process saw it last. */
  private readonly current = new Map<string, string>();
  /** Windows this process has seen in a state other than unknown. */
  private readonly settledIds = new Set<string>();
  readonly pool: RunPool<Tag>;

  constructor(private readonly deps: OnEventsDeps) {
    this.pool = new RunPool<Tag>({
      spawn: deps.spawn ?? spawnProcess,
      clock: deps.clock,
      max: deps.max,
      queueMax: deps.queueMax,
      done: (t, o) => this.done(t, o),
      dropped: (t) => this.fail(t, `dropped: ${this.pool.running} commands running and ${this.pool.queued} waiting`),
    });
  }

  /** A window changed (called on every change: cheap unless it entered a new state). */
  observe(s: OnSubject, detail: () => OnDetail): void {
    const first = s.state !== 'unknown' && !this.settledIds.has(s.id);
    if (s.state !== 'unknown') this.settledIds.add(s.id);
    this.entry(s, 'state', s.state, s.stateSince, first, detail);
    if (s.stalledAt === null) this.current.delete(`${s.id}:stalled`);
    // the stall's time is kept with its queue: its key alone tells a restart's old stall
    else this.entry(s, 'stalled', 'stalled', s.stalledAt, false, detail);
  }

  /** The supervisor stops. */
  stop(): void {
    this.pool.stop();
  }

  /** The window is gone. */
  forget(id: string): void {
    this.current.delete(`${id}:state`);
    this.current.delete(`${id}:stalled`);
    this.settledIds.delete(id);
    this.deps.fired.forget(id);
  }

  private entry(s: OnSubject, track: Track, state: string, since: number, firstSeen: boolean, detail: () => OnDetail): void {
    const t = `${s.id}:${track}`;
    const key = `${s.window}|${state}|${since}`;
    if (this.current.get(t) === key) return;
    this.current.set(t, key);
    const kind = ON_EVENTS.find((e) => e === state);
    if (!kind) return;
    const rules = this.deps.rules().filter((r) => r.event === kind && (r.agent === null || r.agent === s.agent) && (r.session === null || r.session === s.session));
    if (rules.length === 0) return;
    const prev = this.deps.fired.get(t);
    if (prev?.key === key) return;
    if (firstSeen && prev?.state === state) {
      // a new supervisor: the window is still in the state the last one fired for
      this.deps.log('info', `on ${kind}: ${s.window} is still ${state} since before this supervisor started; not run again`);
      return;
    }
    const now = this.deps.clock.now();
    this.deps.fired.put({ track: t, state, since, key, at: now });
    const event = buildEvent(kind, key, now, s, detail());
    for (const rule of rules) this.pool.submit({ argv: rule.run, env: eventEnv(this.deps.env ?? process.env, event), stdin: JSON.stringify(event) + '\n', timeoutMs: rule.timeoutMs }, { event, rule });
  }

  private done(t: Tag, o: RunOutcome): void {
    if (o.ok) this.deps.log('info', `on ${t.event.kind} ${visible(t.event.name)} (${t.event.window}): ${visible(t.rule.run[0]!)} ran (${o.ms} ms)`);
    else this.fail(t, describeOutcome(o, t.rule.timeoutMs));
  }

  private fail(t: Tag, why: string): void {
    this.deps.log('warn', `on ${t.event.kind} ${visible(t.event.name)} (${t.event.window}): ${visible(JSON.stringify(t.rule.run))} ${why}`);
    this.deps.failed({ at: this.deps.clock.now(), event: t.event.kind, window: t.event.window, name: t.event.name, run: t.rule.run, why });
  }
}

/** The bottom `n` rows that hold something, trailing blanks cut, control characters shown. */
export function lastLines(rows: string[], n = EVENT_LINES): string[] {
  let end = rows.length;
  while (end > 0 && rows[end - 1]!.trim() === '') end--;
  return rows.slice(Math.max(0, end - n), end).map((r) => visible(r.trimEnd()));
}

export function buildEvent(kind: OnEventKind, key: string, at: number, s: OnSubject, d: OnDetail): OnEvent {
  const r = d.row;
  return {
    kind,
    key,
    at,
    window: s.window,
    name: r.name,
    agent: s.agent,
    session: s.session,
    state: s.state,
    since: kind === 'stalled' ? s.stalledAt! : s.stateSince,
    id: s.id,
    pane: r.pane,
    cwd: r.cwd,
    promptId: kind === 'blocked' ? d.promptId : null,
    lines: kind === 'blocked' ? lastLines(d.screen()) : [],
    stalledAt: s.stalledAt,
    queue: r.queue,
    exitStatus: r.exitStatus,
    limit: kind === 'limited' && r.limit ? { words: r.limit.words, resetAt: r.limit.resetAt } : null,
    row: r,
  };
}

/** The environment of a command: the supervisor's, and the event as NERDR_EVENT_*, shown safely. */
export function eventEnv(base: NodeJS.ProcessEnv, e: OnEvent): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) if (!k.startsWith('NERDR_EVENT_')) env[k] = v;
  const set = (k: string, v: string | number | null): void => {
    if (v !== null && v !== '') env[`NERDR_EVENT_${k}`] = visible(String(v));
  };
  set('KIND', e.kind);
  set('KEY', e.key);
  set('WINDOW', e.window);
  set('NAME', e.name);
  set('AGENT', e.agent);
  set('SESSION', e.session);
  set('STATE', e.state);
  set('SINCE', e.since);
  set('ID', e.id);
  set('PANE', e.pane);
  set('CWD', e.cwd);
  set('PROMPT_ID', e.promptId);
  set('QUEUE', e.queue);
  set('EXIT_STATUS', e.exitStatus);
  set('LIMIT', e.limit?.words ?? null);
  set('RESET_AT', e.limit?.resetAt ?? null);
  if (e.lines.length > 0) env.NERDR_EVENT_LINES = e.lines.join('\n');
  return env;
}

/**
 * The rules of config.toml, read again when the file changes (its time or size): a stat per
 * state entry of a kind that can fire, nothing per byte. Its problems go to the log once.
 */
export function configRules(file: string, load: () => LoadedConfig, log: Logger): () => OnRule[] {
  let seen = '';
  let rules: OnRule[] = [];
  return () => {
    let stamp = 'none';
    try {
      const st = statSync(file);
      stamp = `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      stamp = 'none';
    }
    if (stamp === seen) return rules;
    seen = stamp;
    const loaded = load();
    rules = loaded.config.on;
    for (const p of loaded.problems) if (p.key === 'on' || p.key.startsWith('on[')) log('warn', `${loaded.path}: ${problemText(p)}`);
    return rules;
  };
}

/**
 * The supervisor's `[[on]]`: each change of a window is looked at; `promptId` is the inbox's
 * prompt id of a blocked window, when there is one to give.
 */
export function watchOnEvents(
  sup: Supervisor,
  files: { dir: string; key: string },
  configDir: string,
  log: Logger,
  promptId: (a: WatchedAgent) => string | null = () => null,
): OnEvents {
  const paths = onFiles(files.dir, files.key);
  const warn = (m: string): void => log('warn', `on: ${m}`);
  const on = new OnEvents({
    clock: sup.clock,
    rules: configRules(`${configDir}/config.toml`, () => loadConfig(configDir), log),
    fired: new FiredStore(paths.fired, warn),
    log,
    failed: (f) => recordFailure(paths.failures, f, warn),
  });
  sup.on('change', (a) => {
    if (sup.agents.get(a.paneId) !== a) return on.forget(a.id);
    on.observe(
      { id: a.id, window: a.windowId, agent: a.agent, session: a.links[0]?.session ?? '', state: a.state, stateSince: a.stateSince, stalledAt: sup.messages.queue(a).stalledAt },
      () => ({ row: agentRow(a, sup.messages), screen: () => a.mirror?.snapshot().rows ?? [], promptId: promptId(a) }),
    );
  });
  return on;
}
