// `nerdr.receipt`: what became of a queued message (`nerdr send --status ID`); with follow, a
// stream of its receipt each time it moves on (`nerdr send --wait`), ending once nothing more is recorded.

import type { Receipt } from '../../store/queue.js';
import type { WatchedAgent } from '../agent.js';
import { RpcError } from '../socket/errors.js';
import type { MethodHost } from './host.js';
import { method } from './method.js';

export const receipt = method('nerdr.receipt', (host: Pick<MethodHost, 'windows' | 'messages' | 'events'>, p, ctx) => {
  const found = host.messages.receipt(p.id);
  if (!found) throw new RpcError('unknown_message', `no message ${p.id} (receipts are kept for a day, the last 20 per window)`);
  const win = host.windows().find((a) => a.id === found.agentId);
  const answer = { receipt: found.receipt, window: win?.windowId ?? null, name: win?.name ?? null };
  if (p.follow !== true || found.receipt.closedAt !== null || !win) return answer;
  const stream = ctx.stream();
  const onReceipt = (_a: WatchedAgent, r: Receipt): void => {
    if (r.id !== p.id) return;
    stream.event('receipt', r);
    if (r.closedAt !== null) stream.end();
  };
  host.events.on('receipt', onReceipt);
  stream.signal.addEventListener('abort', () => void host.events.off('receipt', onReceipt));
  return answer;
});
