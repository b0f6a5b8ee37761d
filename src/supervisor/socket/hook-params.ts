// `nerdr.hook` params: what `nerdr hook <agent>` sends for every agent hook event.
//   { secret: $NERDR_TAB, agent: "<agent>", event: <the hook's stdin JSON object> | null,
//     dropped?: "too_large" | "malformed" | "empty" }

import { RpcError, invalidRequest } from './errors.js';
import { looksLikeFlag } from './herdr.js';
import { sanitize, stripControl } from './sanitize.js';
import type { HookReport } from './server.js';

export interface ParsedHook {
  secret: string;
  agent: string;
  /** The hook payload, every string cleaned of control characters; null when it was dropped. */
  event: Record<string, unknown> | null;
  /** Why the payload is missing, as reported by the hook client. */
  dropped?: string;
  /** The event name given on the hook's command line, for payloads that do not carry one. */
  hint?: string;
}

/** Keys under which agents put their conversation/session id (Claude/Codex/Gemini, Copilot/Grok, opencode, agy). */
const ID_KEYS = new Set([
  'session_id', 'sessionId', 'sessionID', 'conversation_id', 'conversationId', 'thread_id', 'threadId',
]);

/** A conversation id anywhere in the first levels of the payload that starts with `-`, or undefined. */
export function findFlagLikeId(event: unknown, depth = 0): string | undefined {
  if (event === null || typeof event !== 'object' || depth > 3) return undefined;
  for (const [k, v] of Object.entries(event as Record<string, unknown>)) {
    if (typeof v === 'string' && ID_KEYS.has(k) && looksLikeFlag(v)) return `${k}=${JSON.stringify(v)}`;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const inner = findFlagLikeId(v, depth + 1);
      if (inner) return inner;
    }
  }
  // opencode's session.created carries the id as properties.info.id.
  const info = (event as { properties?: { info?: { id?: unknown } } }).properties?.info;
  if (depth === 0 && typeof info?.id === 'string' && looksLikeFlag(info.id)) return `properties.info.id=${JSON.stringify(info.id)}`;
  return undefined;
}

export function parseHookParams(params: Record<string, unknown>): ParsedHook {
  const { secret, agent, event, dropped, hint } = params;
  if (typeof secret !== 'string') throw invalidRequest('missing field `secret`');
  if (typeof agent !== 'string') throw invalidRequest('missing field `agent`');
  const label = stripControl(agent).trim();
  if (label === '') throw new RpcError('invalid_agent', 'agent label must not be empty');
  if (event !== null && (typeof event !== 'object' || Array.isArray(event))) {
    throw invalidRequest('invalid type for `event`: expected an object or null');
  }
  if (dropped !== undefined && typeof dropped !== 'string') throw invalidRequest('invalid type for `dropped`: expected a string');
  const flag = findFlagLikeId(event);
  if (flag) throw new RpcError('invalid_agent_session', `conversation id looks like a flag: ${stripControl(flag)}`);
  const out: ParsedHook = {
    secret,
    agent: label,
    event: event === null ? null : (sanitize(event) as Record<string, unknown>),
  };
  if (dropped !== undefined) out.dropped = stripControl(dropped);
  if (typeof hint === 'string' && hint.trim()) out.hint = stripControl(hint).trim().slice(0, 64);
  return out;
}

/**
 * A hook event's params, checked and authenticated: what the socket does with `nerdr.hook` and
 * the spool reader (src/supervisor/spool.ts) with each file, so both refuse the same events.
 * Throws the RpcError the socket answers (`unauthorized` for a secret that names no window).
 */
export async function authenticateHook<W>(params: Record<string, unknown>, authenticate: (secret: string) => W | null | undefined | Promise<W | null | undefined>): Promise<HookReport<W>> {
  const hook = parseHookParams(params);
  const window = hook.secret === '' ? null : await authenticate(hook.secret);
  if (window === null || window === undefined) throw new RpcError('unauthorized', 'unknown secret: NERDR_TAB does not name a window');
  const report: HookReport<W> = { window, agent: hook.agent, event: hook.event };
  if (hook.dropped !== undefined) report.dropped = hook.dropped;
  if (hook.hint !== undefined) report.hint = hook.hint;
  return report;
}
