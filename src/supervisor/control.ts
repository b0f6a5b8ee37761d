// Which windows an agent may act on through nerdr (stop, send, focus, next): the windows it
// started and the windows those started, unless the user's config says `[agents] control =
// "all"`. A caller is an agent when its request carries an agent window's secret (NERDR_TAB, the
// environment nerdr gives each agent window); people at a shell carry none and are never limited.
// Reading (ls, read, explain, wait, events) is open to all. Pure: the supervisor passes what it
// knows. docs/agents-driving-agents.md.

import type { ControlScope } from '../config.js';

/** A window as the rule sees it. */
export interface ControlNode {
  /** nerdr's id of the window (@nerdr_pane). */
  id: string;
  name: string;
  windowId: string;
  /** The ids of the agent windows that started it, nearest first (@nerdr_lineage). */
  lineage: string[];
}

export type ControlAction = 'stop' | 'send to' | 'focus' | 'restart';

export type ControlVerdict = { ok: true } | { ok: false; reason: string };

/** The lineage of a window started by `parent` (null: by a person). */
export function childLineage(parent: ControlNode | null): string[] {
  return parent ? [parent.id, ...parent.lineage] : [];
}

/** Whether `caller` (an agent window, or null for a person) may `action` the `target` window. */
export function mayControl(caller: ControlNode | null, target: ControlNode, action: ControlAction, scope: ControlScope): ControlVerdict {
  if (caller === null || scope === 'all') return { ok: true };
  if (target.lineage.includes(caller.id)) return { ok: true };
  return {
    ok: false,
    reason:
      `${caller.name} (${caller.windowId}) is an agent window: it may ${action} only the windows it started and theirs, ` +
      `and ${target.name} (${target.windowId}) is not one of them`,
  };
}

/** The fix a refusal names. */
export function controlFix(configFile: string): string {
  return `start the helper from this window (\`nerdr new … -d\`), or, to let agents act on every window, set [agents] control = "all" in ${configFile}`;
}
