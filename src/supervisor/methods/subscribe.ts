// `nerdr.subscribe`: a stream of the agent list: the current rows at once, then again after
// every change (coalesced), until the client hangs up. The dashboard lives on this. With
// `active: true` it also carries each user session's current window (`active` events, on a
// switch): the review panel follows that.

import type { ActiveWindow } from '../active.js';
import type { Timer } from '../clock.js';
import type { MethodHost } from './host.js';
import { method } from './method.js';

export const subscribe = method('nerdr.subscribe', async (host: Pick<MethodHost, 'windows' | 'row' | 'events' | 'active' | 'clock'>, p, ctx) => {
  const stream = ctx.stream();
  const follow = p.active === true;
  const rows = () => host.windows().map((a) => host.row(a));
  let timer: Timer | null = null;
  const push = (): void => {
    timer = null;
    if (!stream.event('agents', { agents: rows() })) stop();
  };
  const onChange = (): void => {
    timer ??= host.clock.after(100, push);
  };
  const onActive = (list: ActiveWindow[]): void => {
    if (!stream.event('active', { active: list })) stop();
  };
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    host.events.off('change', onChange);
    timer?.cancel();
    if (follow) {
      host.events.off('active', onActive);
      host.active.release();
    }
  };
  host.events.on('change', onChange);
  if (follow) host.events.on('active', onActive);
  stream.signal.addEventListener('abort', stop);
  const active = follow ? { active: await host.active.follow() } : {};
  return { type: 'subscription_started', agents: rows(), ...active };
});
