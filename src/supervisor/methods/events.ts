// `nerdr.events` (`nerdr events`): the rows, then a line per change (src/supervisor/events.ts),
// until the client hangs up. With a target, that window only; the stream ends when it closes.

import type { WatchedAgent } from '../agent.js';
import { EventFeed } from '../events.js';
import type { MethodHost } from './host.js';
import { method } from './method.js';
import { findTarget } from './target.js';

export const events = method('nerdr.events', (host: Pick<MethodHost, 'windows' | 'watching' | 'row' | 'events' | 'clock'>, p, ctx) => {
  const only = p.target ? findTarget(host, p.target).paneId : null;
  const stream = ctx.stream();
  const rows = () => host.windows().filter((a) => only === null || a.paneId === only).map((a) => ({ pane: a.paneId, row: host.row(a) }));
  const feed = new EventFeed(
    { send: (line) => stream.send(line), pending: () => stream.pending(), drained: (fn) => stream.drained(fn) },
    rows,
    () => host.clock.now(),
  );
  const onChange = (a: WatchedAgent): void => {
    if (only !== null && a.paneId !== only) return;
    const alive = host.watching(a);
    feed.update(a.paneId, alive ? host.row(a) : null);
    if (!alive && only !== null) stream.end();
  };
  host.events.on('change', onChange);
  stream.signal.addEventListener('abort', () => void host.events.off('change', onChange));
  return { type: 'events_started', agents: feed.start() };
});
