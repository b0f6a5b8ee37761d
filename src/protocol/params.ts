// What each of nerdr's own socket methods takes: one zod schema per method, the one owner of
// that rule. The supervisor checks every request against it before a method runs
// (src/supervisor/methods/method.ts); a client may check its own request with it too.
// docs/socket-protocol.md, "nerdr's own methods", describes the same params for people.
//
// Unknown keys are ignored (dropped), as herdr's serde does; null counts as absent for an
// optional param.

import path from 'node:path';
import { z } from 'zod';
import { savedSessionSchema } from '../store/sessions.js';

/** The states a wait can end on (src/types.ts AgentState). */
export const AGENT_STATES = ['working', 'blocked', 'done', 'idle', 'unknown', 'limited', 'exited', 'hibernated'] as const;

/** The choices `nerdr.answer` names by what they do (or by number). */
export const ANSWER_KINDS = ['approve', 'always', 'deny'] as const;

/** The actions the agent limits know (src/supervisor/control.ts ControlAction). */
export const CONTROL_ACTIONS = ['stop', 'send to', 'focus', 'restart', 'hibernate', 'wake'] as const;

const target = z.string();
/** The NERDR_TAB of the shell that asks, when it runs in an agent window. */
const caller = z.string().nullish();
const text = z.string().nullish();
const flag = z.boolean().nullish();
const argv = z.array(z.string()).min(1, 'must name a program');
const env = z.record(z.string(), z.string()).nullish();
/** The environment of the process that asked (the supervisor keeps its string values). */
const callerEnv = z.record(z.string(), z.unknown()).nullish();

const none = z.object({});

export const methodParams = {
  'nerdr.info': none,
  'nerdr.ls': none,
  'nerdr.status': none,
  'nerdr.stop': z.object({ caller }),
  'nerdr.fleet': none,
  'nerdr.fleet-reload': none,
  'nerdr.explain': z.object({ target }),
  'nerdr.read': z.object({
    target,
    lines: z.number().int('must be a whole number').positive('must be 1 or more').nullish(),
    ansi: flag,
  }),
  'nerdr.subscribe': z.object({ active: flag }),
  'nerdr.events': z.object({ target: text }),
  'nerdr.send': z.object({ target, message: z.string().min(1, 'must not be empty'), caller }),
  'nerdr.retry': z.object({ id: z.string(), caller }),
  'nerdr.cancel': z.object({ id: z.string(), caller }),
  'nerdr.edit': z.object({ id: z.string(), message: z.string().min(1, 'must not be empty'), caller }),
  'nerdr.inbox': none,
  'nerdr.answer': z.object({
    target,
    prompt: z.string().min(1, 'must name the prompt (its id in `nerdr inbox`)'),
    choice: z.union([z.enum(ANSWER_KINDS), z.number().int('must be a whole number').min(1, 'must be 1 or more').max(99, 'must be at most 99')]),
    text,
    caller,
  }),
  'nerdr.snooze': z.object({ id: z.string().min(1), forMs: z.number().int('must be a whole number of milliseconds').min(0, 'must be 0 (wake it) or more'), caller }),
  'nerdr.receipt': z.object({ id: z.string(), follow: flag }),
  'nerdr.wait': z.object({
    target,
    until: z.array(z.enum(AGENT_STATES)).nullish(),
    timeoutMs: z.number().min(0, 'must be 0 (no limit) or more').nullish(),
  }),
  'nerdr.respawn': z.object({ target, argv, env, callerEnv, conversationId: text, note: text, caller }),
  'nerdr.stop-agent': z.object({ target, caller }),
  'nerdr.hibernate': z.object({ target, caller }),
  'nerdr.wake': z.object({ target, callerEnv, caller }),
  'nerdr.may': z.object({ caller, action: z.enum(CONTROL_ACTIONS).nullish() }),
  'nerdr.restore': z.object({ sessions: z.array(savedSessionSchema), callerEnv, dryRun: flag, caller }),
  'nerdr.new': z.object({
    session: z.string(),
    argv,
    agent: text,
    name: text,
    cwd: z.string().refine((s) => s === '' || path.isAbsolute(s), 'must be an absolute path').nullish(),
    userArgs: z.array(z.string()).nullish(),
    env,
    callerEnv,
    conversationId: text,
    conversationFrom: z.enum(['launch', 'guess']).nullish(),
    note: text,
    index: z.number().int('must be a whole number').min(0, 'must be 0 or more').nullish(),
    watched: flag,
    worktree: z
      .object({ path: z.string().refine((s) => path.isAbsolute(s), 'must be an absolute path'), branch: z.string().min(1, 'must not be empty'), base: z.string() })
      .nullish(),
    setup: z.object({ command: z.string().refine((s) => s.trim() !== '', 'must not be empty'), hint: z.string().nullish() }).nullish(),
    idleAfterMs: z.number().int('must be a whole number of milliseconds (0: off)').min(0, 'must be 0 (off) or more').max(999_999_999, 'must be at most 999999999').nullish(),
    caller,
  }),
} as const satisfies Record<string, z.ZodObject>;

export type MethodName = keyof typeof methodParams;
/** A method's params once checked. */
export type Params<M extends MethodName> = z.output<(typeof methodParams)[M]>;

export function isMethodName(name: string): name is MethodName {
  return Object.hasOwn(methodParams, name);
}

/** `{target, message, caller?}`: what a method takes, for an error's fix. */
export function paramsSignature(method: MethodName): string {
  const shape = methodParams[method].shape as Record<string, z.ZodType>;
  const keys = Object.entries(shape).map(([k, s]) => (s.safeParse(undefined).success ? `${k}?` : k));
  return keys.length ? `{${keys.join(', ')}}` : '{}';
}

export type ParamsCheck<M extends MethodName> = { ok: true; params: Params<M> } | { ok: false; message: string; fix: string };

/**
 * Checks a request's params against its method's schema. A refusal names the first param at
 * fault and why (`message is missing: expected a string`), and the fix names what the method takes.
 */
export function checkParams<M extends MethodName>(method: M, params: unknown): ParamsCheck<M> {
  const r = methodParams[method].safeParse(params);
  if (r.success) return { ok: true, params: r.data as Params<M> };
  const issue = r.error.issues[0];
  return {
    ok: false,
    message: `${method}: ${issue ? issueText(issue, params) : 'invalid params'}`,
    fix: `${method} takes ${paramsSignature(method)}; docs/socket-protocol.md, "nerdr's own methods", says what each holds`,
  };
}

function issueText(issue: z.core.$ZodIssue, params: unknown): string {
  const where = issue.path.map(String).join('.') || 'params';
  if (issue.message.startsWith('must ')) return `${where} ${issue.message}`;
  if (issue.code === 'invalid_type') {
    const given = valueAt(params, issue.path);
    return given === undefined ? `${where} is missing: expected ${a(issue.expected)}` : `${where} must be ${a(issue.expected)}, not ${kind(given)}`;
  }
  return `${where}: ${issue.message}`;
}

function valueAt(v: unknown, at: readonly PropertyKey[]): unknown {
  let cur = v;
  for (const k of at) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[k];
  }
  return cur;
}

function a(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return a(typeof v);
}
