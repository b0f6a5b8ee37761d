// `nerdr.snooze` (`nerdr inbox snooze ID 15m`): a row left out of the inbox for a while; 0 brings it
// back. The inbox is the user's: an agent window may not hide what waits for them.

import { RpcError } from '../socket/errors.js';
import type { MethodHost } from './host.js';
import { method } from './method.js';
import { callerOf } from './target.js';

export const snooze = method('nerdr.snooze', (host: Pick<MethodHost, 'inbox' | 'bySecret'>, p) => {
  const caller = callerOf(host, p.caller);
  if (caller) throw new RpcError('not_permitted', `${caller.name} (${caller.windowId}) is an agent window: only people snooze what waits for them`, false, 'snooze it from a shell or the dashboard');
  const until = host.inbox.snoozes.set(p.id, p.forMs);
  return { id: p.id, until };
});
