// `nerdr.wait`: answers when the agent that occupies the window now reaches one of the states;
// fails when that agent exits or is replaced, or its window goes away. Event-driven: no polling.

import type { Timer } from '../clock.js';
import { RpcError } from '../socket/errors.js';
import type { MethodHost } from './host.js';
import { method } from './method.js';
import { findTarget } from './target.js';

const SETTLED = ['done', 'idle', 'blocked'];

export const wait = method('nerdr.wait', (host: Pick<MethodHost, 'windows' | 'watching' | 'row' | 'events' | 'clock'>, p, ctx) => {
  const a = findTarget(host, p.target);
  const until: string[] = p.until?.length ? p.until : SETTLED;
  const timeoutMs = p.timeoutMs ?? 0;
  const generation = a.generation;
  return new Promise((resolve, reject) => {
    let timer: Timer | null = null;
    const done = (fn: () => void): void => {
      host.events.off('change', check);
      timer?.cancel();
      fn();
    };
    const check = (): void => {
      if (!host.watching(a)) return done(() => reject(new RpcError('agent_gone', `the window of ${a.name} is gone`)));
      if (a.generation !== generation) return done(() => reject(new RpcError('agent_replaced', `the agent in ${a.name} was restarted`)));
      if (until.includes(a.state)) return done(() => resolve({ target: a.windowId, state: a.state, agent: host.row(a) }));
      if (a.dead) return done(() => reject(new RpcError('agent_exited', `${a.name} exited (status ${a.deadStatus || '?'}) before reaching ${until.join('|')}`)));
    };
    host.events.on('change', check);
    ctx.signal.addEventListener('abort', () => done(() => reject(new RpcError('aborted', 'the client went away'))));
    if (timeoutMs) timer = host.clock.after(timeoutMs, () => done(() => reject(new RpcError('timeout', `timed out after ${timeoutMs / 1000} s; ${a.name} is ${a.state}`))));
    check();
  });
});
