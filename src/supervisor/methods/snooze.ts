// `nerdr.snooze` (`nerdr inbox snooze ID 15m`): a row left out of the inbox for a while; 0 brings it back.

import type { MethodHost } from './host.js';
import { method } from './method.js';

export const snooze = method('nerdr.snooze', (host: Pick<MethodHost, 'inbox'>, p) => {
  const until = host.inbox.snoozes.set(p.id, p.forMs);
  return { id: p.id, until };
});
