// `nerdr.retry` (`nerdr send --retry ID`): a message that left the queue because it may have been
// typed in (an older nerdr's supervisor stopped while typing it) is queued again, as a new message, for its window.

import type { MethodHost } from './host.js';
import { method } from './method.js';
import { callerOf, checkControl } from './target.js';

export const retry = method('nerdr.retry', (host: Pick<MethodHost, 'windows' | 'bySecret' | 'control' | 'messages'>, p) => {
  const caller = callerOf(host, p.caller);
  const r = host.messages.retry(p.id, (agentId) => {
    const a = host.windows().find((x) => x.id === agentId) ?? null;
    if (a) checkControl(host, caller, a, 'send to');
    return a;
  });
  return { target: r.agent.windowId, id: r.id, position: r.position, state: r.agent.state, exited: r.agent.dead, retried: p.id };
});
