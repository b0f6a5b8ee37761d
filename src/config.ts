// <configDir>/config.toml: loaded, validated key by key. An invalid value is reported with its key
// and the default is used in its place; the rest of the file still applies.
// Documented in docs/config.md.

import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import { INSTALL_MODES } from './integrations/modes.js';
import { INTEGRATIONS, wiringFor, type AgentConfig } from './integrations/index.js';

export type { AgentConfig };
import { DEFAULT_IDLE_AFTER_MS } from './state/constants.js';
import { parseDuration } from './inbox/duration.js';

export interface NerdrConfig {
  /** Every known agent, defaults filled in; plus any other agent named in the file. */
  agents: Record<string, AgentConfig>;
  lights: { auto_install: boolean };
  notify: { bell: boolean; osc: boolean; desktop: boolean };
  /** `nerdr new --worktree` (docs/worktrees.md). */
  worktrees: WorktreesConfig;
  /**
   * `[agents] control`: which windows an agent may stop, type into or switch to through nerdr:
   * "own" (the windows it started, and theirs), or "all". People at a shell are never limited.
   */
  control: ControlScope;
  /** `[agents] max_helpers`, `max_depth`: how many helpers an agent window may have, how deep they nest. */
  limits: AgentLimits;
  /**
   * `[agents] answer`: whether an agent window may answer dialogs through `nerdr answer`: "none"
   * (only people), or "helpers" (an agent, the dialogs of the windows it started and theirs).
   */
  answer: AnswerScope;
  /**
   * `[agents] on_limit`: what nerdr does once an agent's usage limit resets: "wait" (only shows
   * it) or "resume" (types `limit_message` into it, before anything else queued).
   * docs/lifecycle.md.
   */
  onLimit: OnLimit;
  /** `[agents] limit_message`: the message typed with on_limit = "resume". */
  limitMessage: string;
  /** `[fleet]`: other hosts' agents over SSH (docs/fleet.md). */
  fleet: FleetConfig;
  /** `[detect]`: how windows are read. */
  detect: DetectConfig;
  /** `[[on]]`: commands run when an agent enters a state (docs/on-events.md). */
  on: OnRule[];
  /** `[web]`: `nerdr web` (docs/web.md). */
  web: WebConfig;
  /**
   * `[agents] hibernate_after` (ms; null: off, the default) and `wake_on_focus`: idle agents
   * hibernated after that long, woken when a client selects their window (docs/lifecycle.md).
   */
  lifecycle: { hibernateAfterMs: number | null; wakeOnFocus: boolean };
}

export interface WebConfig {
  /** The port to serve on; null: a free one, chosen at each start. */
  port: number | null;
  /** The address to listen on: loopback unless the user names another (then nerdr web warns). */
  listen: string;
}

/** What is wrong with a `[web] listen` / `--listen` address, or null: an IP address of this machine, never the wildcard (no Host could be checked against it). */
export function webListenProblem(v: unknown): string | null {
  if (typeof v !== 'string' || isIP(v) === 0) return `must be an IP address such as "127.0.0.1" or a tailnet address (got ${show(v)})`;
  if (v === '0.0.0.0' || v === '::' || /^0+(\.0+){3}$/.test(v)) return `must be one address, not every address (got ${show(v)}): name the interface's own address`;
  return null;
}

/** What is wrong with a `[web] port` / `--port`, or null: 0 (a free one) to 65535. */
export function webPortProblem(v: unknown): string | null {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 65535 ? null : `must be a port number from 1 to 65535, or 0 for a free one (got ${show(v)})`;
}

export interface AgentLimits {
  /** The helper windows one agent window may have running at once: those it started and theirs. */
  max_helpers: number;
  /** How many agent windows may stand above a window: 1, a person's agent may start helpers, and they none. */
  max_depth: number;
}

export const DEFAULT_AGENT_LIMITS: AgentLimits = { max_helpers: 8, max_depth: 3 };

export interface DetectConfig {
  /**
   * The quiet rule (docs/state-rules.md): a `nerdr new --cmd` program no manifest knows is idle
   * once its output is quiet this many seconds with the cursor on an input line; 0 = off.
   * A window takes it when it is made (`--idle-after` wins).
   */
  idle_after: number;
}

/** `--idle-after` and `[detect] idle_after`: 0 (off), or between these many seconds. */
export const IDLE_AFTER_MIN_S = 0.5;
export const IDLE_AFTER_MAX_S = 3600;

/** What is wrong with an idle-after value in seconds, or null. */
export function idleAfterProblem(v: unknown): string | null {
  if (typeof v !== 'number' || !Number.isFinite(v)) return `must be a number of seconds (got ${show(v)})`;
  if (v !== 0 && (v < IDLE_AFTER_MIN_S || v > IDLE_AFTER_MAX_S)) return `must be 0 (off) or from ${IDLE_AFTER_MIN_S} to ${IDLE_AFTER_MAX_S} seconds (got ${v})`;
  return null;
}

export interface FleetHost {
  /** What the user's ssh accepts: an alias from ~/.ssh/config, user@host, ssh://user@host:port. */
  target: string;
  /** The nerdr command on that host (default: `nerdr`, found on the remote PATH). */
  nerdr: string;
  /** The -L name of the tmux server there (default: tmux's own, "default"). */
  socket: string;
}

export interface FleetConfig {
  /** The ssh program and options of the user's choosing, before nerdr's own (default: ["ssh"]). */
  ssh: string[];
  hosts: Record<string, FleetHost>;
}

/** A fleet host's name: used in `HOST:NAME` targets and in the status bar. */
export const FLEET_HOST_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;

export const CONTROL_SCOPES = ['own', 'all'] as const;
export const ANSWER_SCOPES = ['none', 'helpers'] as const;
export type AnswerScope = (typeof ANSWER_SCOPES)[number];
export type ControlScope = (typeof CONTROL_SCOPES)[number];

export interface WorktreesConfig {
  /** Where worktrees go; null: `<repository's parent>/<repository name>.worktrees`. */
  root: string | null;
  /** Untracked files copied from the main checkout into a new worktree (`.env`, …). */
  copy: string[];
  /** A shell command run in a new worktree, in its window, before the agent starts. */
  setup: string | null;
  /** Ignored files or folders (`build/`) `nerdr worktree rm` may delete without --force. */
  rm_ignored: string[];
  /** `nerdr worktree land` runs this argv (no shell) on the merged result before the base moves; null: no check. */
  check: string[] | null;
}

export interface ConfigProblem {
  /** Dotted key, e.g. "agents.codex.install"; "" for the file as a whole. */
  key: string;
  message: string;
  /** What is used instead, as text (e.g. `"launch"`, `defaults`). */
  used: string;
}

export interface LoadedConfig {
  config: NerdrConfig;
  problems: ConfigProblem[];
  /** The file read (it may not exist). */
  path: string;
  exists: boolean;
}

export function defaultAgentConfig(agent: string): AgentConfig {
  return { install: wiringFor(agent).default, hooks: true, args: [] };
}

export function defaultConfig(): NerdrConfig {
  const agents: Record<string, AgentConfig> = {};
  for (const id of Object.keys(INTEGRATIONS)) agents[id] = defaultAgentConfig(id);
  // one key a line: each section added is one line of its own
  return {
    agents,
    lights: { auto_install: true },
    notify: { bell: true, osc: true, desktop: true },
    worktrees: { root: null, copy: [], setup: null, rm_ignored: [], check: null },
    control: 'own',
    answer: 'none',
    onLimit: 'wait',
    limitMessage: DEFAULT_LIMIT_MESSAGE,
    limits: { ...DEFAULT_AGENT_LIMITS },
    fleet: { ssh: ['ssh'], hosts: {} },
    detect: { idle_after: DEFAULT_IDLE_AFTER_MS / 1000 },
    on: [],
    web: { port: null, listen: '127.0.0.1' },
    lifecycle: { hibernateAfterMs: null, wakeOnFocus: false },
  };
}

/** The settings for one agent (defaults when the file does not mention it). */
export function agentConfig(config: NerdrConfig, agent: string): AgentConfig {
  return config.agents[agent] ?? defaultAgentConfig(agent);
}

/** `[agents] on_limit`. */
export const ON_LIMIT = ['wait', 'resume'] as const;
export type OnLimit = (typeof ON_LIMIT)[number];
export const DEFAULT_LIMIT_MESSAGE = 'continue';
// eslint-disable-next-line no-control-regex
const limitMessageSchema = z.string().min(1).max(2000).refine((s) => s.trim() !== '' && !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(s));

const boolSchema = z.boolean();
const argsSchema = z.array(z.string());
const limitSchema = z.number().int().min(0).max(1000);
const commandSchema = z.array(z.string().min(1)).min(1);

function show(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** Validate parsed TOML (any shape). Never throws. */
export function validateConfig(raw: unknown): { config: NerdrConfig; problems: ConfigProblem[] } {
  const config = defaultConfig();
  const problems: ConfigProblem[] = [];
  const bad = (key: string, message: string, used: unknown) => problems.push({ key, message, used: typeof used === 'string' && used === 'defaults' ? used : show(used) });
  if (!isTable(raw)) return { config, problems };

  const bools = <T extends Record<string, boolean>>(section: string, value: unknown, into: T) => {
    if (value === undefined) return;
    if (!isTable(value)) return bad(section, 'must be a table', 'defaults');
    for (const [k, v] of Object.entries(value)) {
      const key = `${section}.${k}`;
      if (!(k in into)) { bad(key, 'unknown key, ignored', 'nothing'); continue; }
      const r = boolSchema.safeParse(v);
      if (r.success) (into as Record<string, boolean>)[k] = r.data;
      else bad(key, `must be true or false (got ${show(v)})`, into[k]);
    }
  };

  for (const [top, value] of Object.entries(raw)) {
    if (top === 'lights') bools('lights', value, config.lights);
    else if (top === 'notify') bools('notify', value, config.notify);
    else if (top === 'worktrees') worktreesSection(value, config.worktrees, bad);
    else if (top === 'fleet') fleetSection(value, config.fleet, bad);
    else if (top === 'detect') detectSection(value, config.detect, bad);
    else if (top === 'on') onSection(value, config.on, bad);
    else if (top === 'web') webSection(value, config.web, bad);
    else if (top === 'agents') {
      if (!isTable(value)) { bad('agents', 'must be a table: control = "own" | "all", answer = "none" | "helpers", on_limit = "wait" | "resume", limit_message, max_helpers, max_depth, hibernate_after, wake_on_focus, and [agents.<name>] sections', 'defaults'); continue; }
      for (const [id, section] of Object.entries(value)) {
        const prefix = `agents.${id}`;
        if (id === 'control') {
          const r = z.enum(CONTROL_SCOPES).safeParse(section);
          if (r.success) config.control = r.data;
          else bad(prefix, `must be "own" (an agent controls only the windows it started) or "all" (got ${show(section)})`, config.control);
          continue;
        }
        if (id === 'answer') {
          const r = z.enum(ANSWER_SCOPES).safeParse(section);
          if (r.success) config.answer = r.data;
          else bad(prefix, `must be "none" (only people answer dialogs) or "helpers" (an agent answers its own helpers' dialogs) (got ${show(section)})`, config.answer);
          continue;
        }
        if (id === 'on_limit') {
          const r = z.enum(ON_LIMIT).safeParse(section);
          if (r.success) config.onLimit = r.data;
          else bad(prefix, `must be "wait" (show the limit) or "resume" (type limit_message once it resets) (got ${show(section)})`, config.onLimit);
          continue;
        }
        if (id === 'limit_message') {
          const r = limitMessageSchema.safeParse(section);
          if (r.success) config.limitMessage = r.data;
          else bad(prefix, `must be a text of 1 to 2000 characters with no control characters but line breaks and tabs (got ${show(section)})`, config.limitMessage);
          continue;
        }
        if (id === 'hibernate_after') {
          const ms = section === 'off' || section === false ? null : typeof section === 'string' ? parseDuration(section) : null;
          if (section === 'off' || section === false) config.lifecycle.hibernateAfterMs = null;
          else if (ms !== null && ms >= 5000) config.lifecycle.hibernateAfterMs = ms;
          else bad(prefix, `must be a duration of 5 s or more such as "30m" or "2h", or "off" (got ${show(section)})`, config.lifecycle.hibernateAfterMs === null ? 'off' : `${config.lifecycle.hibernateAfterMs / 1000}s`);
          continue;
        }
        if (id === 'wake_on_focus') {
          const r = boolSchema.safeParse(section);
          if (r.success) config.lifecycle.wakeOnFocus = r.data;
          else bad(prefix, `must be true or false (got ${show(section)})`, config.lifecycle.wakeOnFocus);
          continue;
        }
        if (id === 'max_helpers' || id === 'max_depth') {
          const r = limitSchema.safeParse(section);
          if (r.success) config.limits[id] = r.data;
          else bad(prefix, `must be a whole number from 0 to 1000 (got ${show(section)})`, config.limits[id]);
          continue;
        }
        if (!/^[a-z0-9][a-z0-9_-]*$/.test(id)) { bad(prefix, 'agent names are lower-case letters, digits, - and _', 'nothing'); continue; }
        const ac = config.agents[id] ?? defaultAgentConfig(id);
        if (!(id in INTEGRATIONS)) bad(prefix, `not an agent nerdr knows (${Object.keys(INTEGRATIONS).join(', ')}); kept for nerdr new --cmd`, 'as written');
        if (!isTable(section)) { bad(prefix, 'must be a table', 'defaults'); config.agents[id] = ac; continue; }
        const wiring = wiringFor(id);
        for (const [k, v] of Object.entries(section)) {
          const key = `${prefix}.${k}`;
          switch (k) {
            case 'install': {
              const r = z.enum(INSTALL_MODES).safeParse(v);
              if (!r.success) bad(key, `must be one of ${INSTALL_MODES.map((m) => `"${m}"`).join(', ')} (got ${show(v)})`, ac.install);
              else if (!wiring.modes.includes(r.data)) bad(key, `${id} supports ${wiring.modes.map((m) => `"${m}"`).join(', ')} (got ${show(v)})`, ac.install);
              else ac.install = r.data;
              break;
            }
            case 'hooks': {
              const r = boolSchema.safeParse(v);
              if (r.success) ac.hooks = r.data;
              else bad(key, `must be true or false (got ${show(v)})`, ac.hooks);
              break;
            }
            case 'args': {
              const r = argsSchema.safeParse(v);
              if (r.success) ac.args = r.data;
              else bad(key, `must be a list of strings (got ${show(v)})`, ac.args);
              break;
            }
            case 'command': {
              const r = commandSchema.safeParse(v);
              if (r.success) ac.command = r.data;
              else bad(key, `must be a non-empty list of strings, the program first (got ${show(v)})`, (INTEGRATIONS as Record<string, { command: string[] } | undefined>)[id]?.command ?? 'nothing');
              break;
            }
            default:
              bad(key, 'unknown key, ignored (known: install, hooks, args, command)', 'nothing');
          }
        }
        config.agents[id] = ac;
      }
    } else bad(top, 'unknown section, ignored (known: [agents.<name>], [lights], [notify], [worktrees], [fleet], [detect], [web], [[on]])', 'nothing');
  }
  return { config, problems };
}

const copySchema = z.array(
  z
    .string()
    .min(1)
    .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'a path inside the checkout, without ..'),
);

function worktreesSection(value: unknown, into: WorktreesConfig, bad: (key: string, message: string, used: unknown) => void): void {
  if (!isTable(value)) return bad('worktrees', 'must be a table', 'defaults');
  for (const [k, v] of Object.entries(value)) {
    const key = `worktrees.${k}`;
    if (k === 'root') {
      const r = z.string().min(1).safeParse(v);
      if (r.success) into.root = r.data;
      else bad(key, `must be a folder (got ${show(v)})`, 'the default, <repository>.worktrees beside the repository');
    } else if (k === 'copy') {
      const r = copySchema.safeParse(v);
      if (r.success) into.copy = r.data;
      else bad(key, `must be a list of paths inside the checkout, without .. (got ${show(v)})`, into.copy);
    } else if (k === 'setup') {
      const r = z.string().safeParse(v);
      if (r.success) into.setup = r.data.trim() || null;
      else bad(key, `must be a shell command as a string (got ${show(v)})`, 'no setup');
    } else if (k === 'rm_ignored') {
      const r = copySchema.safeParse(v);
      if (r.success) into.rm_ignored = r.data;
      else bad(key, `must be a list of paths inside the checkout, without .. (got ${show(v)})`, 'none: rm refuses every ignored file');
    } else if (k === 'check') {
      // an argv, never a shell: `check = ["npm", "test"]`
      const r = commandSchema.safeParse(v);
      if (r.success) into.check = r.data;
      else bad(key, `must be a program and its arguments as a list of strings, e.g. ["npm", "test"] (got ${show(v)})`, 'no check');
    } else bad(key, 'unknown key, ignored (known: root, copy, setup, rm_ignored, check)', 'nothing');
  }
}

function detectSection(value: unknown, into: DetectConfig, bad: (key: string, message: string, used: unknown) => void): void {
  if (!isTable(value)) return bad('detect', 'must be a table', 'defaults');
  for (const [k, v] of Object.entries(value)) {
    const key = `detect.${k}`;
    if (k === 'idle_after') {
      const problem = idleAfterProblem(v);
      if (problem === null) into.idle_after = v as number;
      else bad(key, problem, into.idle_after);
    } else bad(key, 'unknown key, ignored (known: idle_after)', 'nothing');
  }
}

function webSection(value: unknown, into: WebConfig, bad: (key: string, message: string, used: unknown) => void): void {
  if (!isTable(value)) return bad('web', 'must be a table', 'defaults');
  for (const [k, v] of Object.entries(value)) {
    const key = `web.${k}`;
    const problem = k === 'port' ? webPortProblem(v) : k === 'listen' ? webListenProblem(v) : undefined;
    if (problem === undefined) bad(key, 'unknown key, ignored (known: port, listen)', 'nothing');
    else if (problem !== null) bad(key, problem, k === 'port' ? 'a free port' : into.listen);
    else if (k === 'port') into.port = (v as number) || null;
    else into.listen = v as string;
  }
}

function fleetSection(value: unknown, into: FleetConfig, bad: (key: string, message: string, used: unknown) => void): void {
  if (!isTable(value)) return bad('fleet', 'must be a table', 'no fleet');
  for (const [k, v] of Object.entries(value)) {
    const key = `fleet.${k}`;
    if (k === 'ssh') {
      const r = commandSchema.safeParse(v);
      if (r.success) into.ssh = r.data;
      else bad(key, `must be a non-empty list of strings, the ssh program first (got ${show(v)})`, into.ssh);
    } else if (k === 'hosts') {
      if (!isTable(v)) { bad(key, 'must be a table of [fleet.hosts.<name>] sections', 'no hosts'); continue; }
      for (const [name, h] of Object.entries(v)) {
        const hk = `${key}.${name}`;
        if (!FLEET_HOST_NAME.test(name)) { bad(hk, 'host names are letters, digits, ., - and _ (at most 32), starting with a letter or digit', 'nothing'); continue; }
        if (!isTable(h)) { bad(hk, 'must be a table with target = "…"', 'nothing'); continue; }
        const target = h['target'];
        if (typeof target !== 'string' || target.trim() === '' || target.startsWith('-')) {
          bad(`${hk}.target`, `must be what your ssh accepts (an alias, user@host, ssh://user@host:port), not starting with - (got ${show(target)})`, 'host left out');
          continue;
        }
        const host: FleetHost = { target: target.trim(), nerdr: 'nerdr', socket: 'default' };
        for (const [hk2, hv] of Object.entries(h)) {
          if (hk2 === 'target') continue;
          if (hk2 === 'nerdr') {
            if (typeof hv === 'string' && hv.trim() !== '') host.nerdr = hv.trim();
            else bad(`${hk}.nerdr`, `must be the nerdr command on that host (got ${show(hv)})`, '"nerdr"');
          } else if (hk2 === 'socket') {
            if (typeof hv === 'string' && /^[A-Za-z0-9_.-]+$/.test(hv)) host.socket = hv;
            else bad(`${hk}.socket`, `must be the -L name of the tmux server there: letters, digits, ., - and _ (got ${show(hv)})`, '"default"');
          } else bad(`${hk}.${hk2}`, 'unknown key, ignored (known: target, nerdr, socket)', 'nothing');
        }
        into.hosts[name] = host;
      }
    } else bad(key, 'unknown key, ignored (known: ssh, hosts)', 'nothing');
  }
}

// ---- [[on]] (docs/on-events.md) ------------------------------------------------------------

/** What an `[[on]]` rule can wait for. `limited` fires once nerdr has that state (its own issue). */
export const ON_EVENTS = ['blocked', 'done', 'stalled', 'limited', 'exited'] as const;
export type OnEventKind = (typeof ON_EVENTS)[number];

export interface OnRule {
  event: OnEventKind;
  /** The program and its arguments: run as they are, never through a shell. */
  run: string[];
  /** How long it may run before SIGTERM (then SIGKILL). */
  timeoutMs: number;
  /** Only for this agent (`claude`, …) / this tmux session; null: any. */
  agent: string | null;
  session: string | null;
}

export const ON_TIMEOUT_DEFAULT_MS = 10_000;
export const ON_TIMEOUT_MIN_MS = 100;
export const ON_TIMEOUT_MAX_MS = 600_000;
/** More rules than this are left out: every event runs each matching one. */
export const ON_RULES_MAX = 32;

/** "10s", "500ms", "2m", or a number of seconds, in ms; null when it is none of these. */
export function durationMs(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v * 1000;
  if (typeof v !== 'string') return null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(v);
  if (!m) return null;
  const n = Number(m[1]);
  return m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : n * 1000;
}

function onSection(value: unknown, into: OnRule[], bad: (key: string, message: string, used: unknown) => void): void {
  if (!Array.isArray(value)) return bad('on', 'must be [[on]] tables (double brackets), one per rule: event = "blocked", run = ["program", "arg", …]', 'no rules');
  value.forEach((t, i) => {
    const key = `on[${i}]`;
    if (i >= ON_RULES_MAX) return bad(key, `at most ${ON_RULES_MAX} [[on]] rules`, 'rule left out');
    if (!isTable(t)) return bad(key, 'must be a table: event = "blocked", run = ["program", "arg", …]', 'rule left out');
    const event = ON_EVENTS.find((e) => e === t['event']);
    if (!event) return bad(`${key}.event`, `must be one of ${ON_EVENTS.map((e) => `"${e}"`).join(', ')} (got ${show(t['event'])})`, 'rule left out');
    const run = t['run'];
    if (typeof run === 'string') return bad(`${key}.run`, `must be a list, the program first: nerdr runs no shell (write run = ["sh", "-c", "…"] to have one, and read the event from $NERDR_EVENT_* there) (got ${show(run)})`, 'rule left out');
    const r = commandSchema.safeParse(run);
    if (!r.success) return bad(`${key}.run`, `must be a non-empty list of strings, the program first (got ${show(run)})`, 'rule left out');
    const rule: OnRule = { event, run: r.data, timeoutMs: ON_TIMEOUT_DEFAULT_MS, agent: null, session: null };
    for (const [k, v] of Object.entries(t)) {
      if (k === 'event' || k === 'run') continue;
      if (k === 'timeout') {
        const ms = durationMs(v);
        if (ms !== null && ms >= ON_TIMEOUT_MIN_MS && ms <= ON_TIMEOUT_MAX_MS) rule.timeoutMs = ms;
        else bad(`${key}.timeout`, `must be a duration from "${ON_TIMEOUT_MIN_MS}ms" to "${ON_TIMEOUT_MAX_MS / 60_000}m", e.g. "10s" (got ${show(v)})`, `"${ON_TIMEOUT_DEFAULT_MS / 1000}s"`);
      } else if (k === 'agent' || k === 'session') {
        if (typeof v === 'string' && v !== '') rule[k] = v;
        else bad(`${key}.${k}`, `must be ${k === 'agent' ? 'an agent\'s name ("claude")' : 'a tmux session\'s name'} (got ${show(v)})`, 'any');
      } else bad(`${key}.${k}`, 'unknown key, ignored (known: event, run, timeout, agent, session)', 'nothing');
    }
    into.push(rule);
  });
}

/** Parse the text of a config.toml. A syntax error means defaults for everything, reported. */
export function parseConfig(text: string): { config: NerdrConfig; problems: ConfigProblem[] } {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (e) {
    const msg = (e instanceof Error ? e.message : String(e)).split('\n')[0]!.replace(/^Invalid TOML document: /, '') || 'syntax error';
    const at = e as { line?: unknown; column?: unknown };
    const where = typeof at.line === 'number' ? ` at line ${at.line}${typeof at.column === 'number' ? `, column ${at.column}` : ''}` : '';
    return { config: defaultConfig(), problems: [{ key: '', message: `not valid TOML${where}: ${msg}`, used: 'defaults' }] };
  }
  return validateConfig(raw);
}

/** Load <configDir>/config.toml. A missing file is not a problem. */
export function loadConfig(configDir: string): LoadedConfig {
  const file = path.join(configDir, 'config.toml');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { config: defaultConfig(), problems: [], path: file, exists: false };
    return { config: defaultConfig(), problems: [{ key: '', message: `cannot read ${file}: ${(e as Error).message}`, used: 'defaults' }], path: file, exists: true };
  }
  return { ...parseConfig(text), path: file, exists: true };
}

/** One line per problem, for stderr, doctor and the log. */
export function formatProblem(file: string, p: ConfigProblem): string {
  return `${file}: ${problemText(p)}`;
}

/** A problem without its file (for lists under the file's name). */
export function problemText(p: ConfigProblem): string {
  return p.key === '' ? `${p.message}; using ${p.used}` : `${p.key}: ${p.message}; using ${p.used}`;
}
