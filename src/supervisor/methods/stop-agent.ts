// `nerdr.stop-agent`: closes a window (`nerdr stop`), within the caller's agent limits.

import type { MethodHost } from './host.js';
import { method } from './method.js';
import { callerOf, checkControl, findTarget } from './target.js';

export const stopAgent = method('nerdr.stop-agent', async (host: Pick<MethodHost, 'windows' | 'bySecret' | 'control' | 'closeWindow'>, p) => {
  const a = findTarget(host, p.target);
  checkControl(host, callerOf(host, p.caller), a, 'stop');
  await host.closeWindow(a);
  return { target: a.windowId, stopped: true };
});
