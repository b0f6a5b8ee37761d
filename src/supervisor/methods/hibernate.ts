// `nerdr.hibernate` and `nerdr.wake` (docs/lifecycle.md): an agent stopped to wake later in its
// conversation, and woken, within the caller's agent limits.

import type { MethodHost } from './host.js';
import { method } from './method.js';
import { callerOf, checkControl, findTarget } from './target.js';

export const hibernate = method('nerdr.hibernate', async (host: Pick<MethodHost, 'windows' | 'bySecret' | 'control' | 'hibernate'>, p) => {
  const a = findTarget(host, p.target);
  checkControl(host, callerOf(host, p.caller), a, 'hibernate');
  const h = await host.hibernate(a);
  return { target: a.windowId, name: a.name, conversationId: h.conversationId, since: h.since, rssKb: h.rssKb };
});

export const wake = method('nerdr.wake', async (host: Pick<MethodHost, 'windows' | 'bySecret' | 'control' | 'wake'>, p) => {
  const a = findTarget(host, p.target);
  checkControl(host, callerOf(host, p.caller), a, 'wake');
  const callerEnv = Object.fromEntries(Object.entries(p.callerEnv ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const r = await host.wake(a, { why: 'nerdr wake', callerEnv: Object.keys(callerEnv).length > 0 ? callerEnv : undefined });
  return { target: a.windowId, name: a.name, conversationId: r.conversationId, resumeFailed: r.resumeFailed };
});
