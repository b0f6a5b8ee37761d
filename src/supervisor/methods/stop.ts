// `nerdr.stop`: the supervisor exits cleanly, once the answer is on its way. It stops watching
// every window, so an agent window may ask it only when `[agents] control = "all"`.

import type { MethodHost } from './host.js';
import { method } from './method.js';
import { callerOf, checkWhole } from './target.js';

export const stop = method('nerdr.stop', (host: Pick<MethodHost, 'clock' | 'stop' | 'bySecret' | 'control'>, p) => {
  checkWhole(host, callerOf(host, p.caller), 'stop or restart the supervisor, which watches every window');
  host.clock.after(10, () => void host.stop());
  return { stopping: true };
});
