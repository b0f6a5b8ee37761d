// `nerdr.edit` (`nerdr send --edit ID TEXT`): a queued message gets new text before it is typed in.

import type { MethodHost } from './host.js';
import { method } from './method.js';
import { permitted } from './cancel.js';

export const edit = method('nerdr.edit', (host: Pick<MethodHost, 'windows' | 'bySecret' | 'control' | 'messages'>, p) => {
  const r = host.messages.edit(p.id, p.message, permitted(host, p.caller));
  return { target: r.agent.windowId, id: r.id, position: r.position };
});
