// `nerdr.stop`: the supervisor exits cleanly, once the answer is on its way.

import type { MethodHost } from './host.js';
import { method } from './method.js';

export const stop = method('nerdr.stop', (host: Pick<MethodHost, 'clock' | 'stop'>) => {
  host.clock.after(10, () => void host.stop());
  return { stopping: true };
});
