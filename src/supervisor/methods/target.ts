// What several methods share: the window a `target` names, the window a request comes from
// (`caller`), and the agent limits between the two (src/supervisor/control.ts).

import type { WatchedAgent } from '../agent.js';
import { controlFix, mayControl, type ControlAction, type ControlNode } from '../control.js';
import { RpcError } from '../socket/errors.js';
import type { MethodHost } from './host.js';

/** A target names an agent window by name, window id (@3), pane id (%7) or nerdr id. */
export function findTarget(host: Pick<MethodHost, 'windows'>, target: string): WatchedAgent {
  const all = host.windows();
  const byId = all.filter((a) => a.paneId === target || a.windowId === target || a.id === target);
  if (byId.length === 1) return byId[0]!;
  const byName = all.filter((a) => a.name === target);
  if (byName.length === 1) return byName[0]!;
  const list = all.map((a) => `${a.name} (${a.windowId})`).join(', ') || 'none running';
  if (byName.length > 1) {
    throw new RpcError('ambiguous_target', `"${target}" names ${byName.length} agents; use a window id: ${byName.map((a) => a.windowId).join(', ')}`);
  }
  throw new RpcError('unknown_target', `no agent "${target}"; agents: ${list}`);
}

export const node = (a: WatchedAgent): ControlNode => ({ id: a.id, name: a.name, windowId: a.windowId, lineage: a.lineage });

/**
 * The agent window a request comes from: `caller` is the NERDR_TAB of the shell that sent it
 * (the CLI passes its own); null for a person's shell. A secret that names no window (its window
 * is gone, or it was inherited by a shell outside nerdr) counts as a person's: an agent could
 * leave NERDR_TAB out as well, so refusing it would protect nothing.
 */
export function callerOf(host: Pick<MethodHost, 'bySecret'>, secret: string | null | undefined): WatchedAgent | null {
  return secret ? host.bySecret(secret) : null;
}

/** Throws `not_permitted` when the caller (an agent window) may not act on the target. */
export function checkControl(host: Pick<MethodHost, 'control'>, caller: WatchedAgent | null, target: WatchedAgent, action: ControlAction): void {
  if (!caller) return;
  const control = host.control();
  const v = mayControl(node(caller), node(target), action, control.scope);
  if (!v.ok) throw new RpcError('not_permitted', v.reason, false, controlFix(control.path));
}

/**
 * Throws `not_permitted` when an agent window asks for what acts on every window (`what`: "stop or
 * restart the supervisor, which watches every window"), unless `[agents] control = "all"`.
 */
export function checkWhole(host: Pick<MethodHost, 'control'>, caller: WatchedAgent | null, what: string): void {
  if (!caller) return;
  const control = host.control();
  if (control.scope === 'all') return;
  throw new RpcError(
    'not_permitted',
    `${caller.name} (${caller.windowId}) is an agent window: it may not ${what}`,
    false,
    `ask the user to run it from a shell, or, to let agents act on every window, set [agents] control = "all" in ${control.path}`,
  );
}
