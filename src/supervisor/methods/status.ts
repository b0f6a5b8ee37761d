// `nerdr.status`: how many windows are in each state.

import type { MethodHost } from './host.js';
import { method } from './method.js';

export const status = method('nerdr.status', (host: Pick<MethodHost, 'windows'>) => {
  const counts: Record<string, number> = {};
  const all = host.windows();
  for (const a of all) counts[a.state] = (counts[a.state] ?? 0) + 1;
  return { counts, total: all.length };
});
