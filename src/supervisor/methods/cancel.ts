// `nerdr.cancel` (`nerdr send --cancel ID`): a queued message leaves its queue before it is typed in.

import { mayControl } from '../control.js';
import type { MethodHost } from './host.js';
import { method } from './method.js';
import { callerOf, node } from './target.js';

export const cancel = method('nerdr.cancel', (host: Pick<MethodHost, 'windows' | 'bySecret' | 'control' | 'messages'>, p) => {
  const r = host.messages.cancel(p.id, permitted(host, p.caller));
  return { target: r.agent.windowId, id: r.id, cancelled: true };
});

/** The windows whose queue the caller may change: all for a person; for an agent, those it may send to. */
export function permitted(host: Pick<MethodHost, 'windows' | 'bySecret' | 'control'>, secret: string | null | undefined) {
  const caller = callerOf(host, secret);
  if (!caller) return host.windows();
  const scope = host.control().scope;
  return host.windows().filter((a) => mayControl(node(caller), node(a), 'send to', scope).ok);
}
