// `nerdr.inbox`: everything that waits for a person, oldest first (src/inbox/rows.ts): blocked
// agents with their dialogs, finished turns not yet seen, stalled queues, queued messages.

import { inboxRows } from '../../inbox/rows.js';
import type { MethodHost } from './host.js';
import { method } from './method.js';

export const inbox = method('nerdr.inbox', (host: Pick<MethodHost, 'windows' | 'inbox'>) => {
  const rows = inboxRows(host.windows().map((a) => host.inbox.window(a)), (id) => host.inbox.snoozes.has(id));
  return { rows };
});
