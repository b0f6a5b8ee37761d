// `nerdr.new`: a window made in `_nerdr` and linked into the caller's session; an agent window
// that asks becomes the new one's parent (its lineage, for the agent limits), within
// `[agents] max_helpers` and `max_depth` (src/supervisor/control.ts).

import { childLineage, mayStart, type ControlNode } from '../control.js';
import type { Params } from '../../protocol/index.js';
import { RpcError } from '../socket/errors.js';
import type { MethodHost } from './host.js';
import { method } from './method.js';
import { callerOf, node } from './target.js';

/** Windows being made for agent callers, per host: counted as helpers before tmux has them, so a loop of `nerdr new … &` cannot slip past the limit. */
const making = new WeakMap<object, Set<ControlNode>>();

export const newWindow = method('nerdr.new', async (host: Pick<MethodHost, 'bySecret' | 'createWindow' | 'windows' | 'control'>, p) => {
  const agent = p.agent || 'unknown';
  const caller = callerOf(host, p.caller);
  const lineage = childLineage(caller ? node(caller) : null);
  let pending = making.get(host);
  if (!pending) making.set(host, (pending = new Set()));
  const reserved: ControlNode = { id: '', name: p.name ?? '', windowId: '', lineage };
  if (caller) {
    const control = host.control();
    const v = mayStart(node(caller), [...host.windows().map(node), ...pending], control.limits, control.path);
    if (!v.ok) throw new RpcError('not_permitted', v.reason, false, v.fix);
    pending.add(reserved);
  }
  try {
    return await create(host, p, agent, lineage);
  } finally {
    pending.delete(reserved);
  }
});

async function create(host: Pick<MethodHost, 'createWindow'>, p: Params<'nerdr.new'>, agent: string, lineage: string[]) {
  const created = await host.createWindow({
    lineage,
    index: p.index ?? undefined,
    userArgs: p.userArgs ?? [],
    agent,
    name: p.name ?? '',
    cwd: p.cwd || process.env.HOME || '/',
    session: p.session,
    argv: p.argv,
    callerEnv: p.callerEnv ?? {},
    env: p.env ?? {},
    watched: p.watched !== false,
    worktree: p.worktree ?? null,
    setup: p.setup ? { command: p.setup.command, hint: p.setup.hint ?? '' } : null,
    conversation: p.conversationId ? { id: p.conversationId, from: p.conversationFrom ?? 'launch' } : null,
    note: p.note ?? '',
    idleAfterMs: p.idleAfterMs ?? null,
  });
  return { window: created.window, pane: created.pane, id: created.id, agent };
}
