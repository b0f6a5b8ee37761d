// Which windows an agent may act on through nerdr (stop, send, focus, next): the windows it
// started and the windows those started, unless the user's config says `[agents] control =
// "all"`. A caller is an agent when its request carries an agent window's secret (NERDR_TAB, the
// environment nerdr gives each agent window); people at a shell carry none and are never limited.
// Reading (ls, read, explain, wait, events) is open to all. How many helpers an agent may have and
// how deep they nest are limited too (`[agents] max_helpers`, `max_depth`), whatever `control`
// says. Pure: the supervisor passes what it knows. docs/orchestration.md.

import type { AgentLimits, ControlScope } from '../config.js';

/** A window as the rule sees it. */
export interface ControlNode {
  /** nerdr's id of the window (@nerdr_pane). */
  id: string;
  name: string;
  windowId: string;
  /** The ids of the agent windows that started it, nearest first (@nerdr_lineage). */
  lineage: string[];
}

export type ControlAction = 'stop' | 'send to' | 'focus' | 'restart' | 'hibernate' | 'wake';

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

export type StartVerdict = { ok: true } | { ok: false; reason: string; fix: string };

/**
 * Whether `caller` (an agent window) may start one more helper, given every window there is (and
 * those being made). The new window would sit `caller.lineage.length + 1` agent windows below a
 * person's: at most `max_depth`. It would count as a helper of each agent window above it: each
 * may have at most `max_helpers` windows below it at once (those it started and theirs).
 */
export function mayStart(caller: ControlNode, windows: ControlNode[], limits: AgentLimits, configFile: string): StartVerdict {
  const lineage = childLineage(caller);
  const who = `${caller.name} (${caller.windowId})`;
  if (lineage.length > limits.max_depth) {
    return {
      ok: false,
      reason: `${who} is an agent window ${caller.lineage.length} below a person's: a helper it starts would be ${lineage.length} deep, and [agents] max_depth is ${limits.max_depth}`,
      fix: `do the work in this window or hand it to a helper above it, or raise [agents] max_depth in ${configFile}`,
    };
  }
  for (const id of lineage) {
    const below = windows.filter((w) => w.lineage.includes(id)).length;
    if (below < limits.max_helpers) continue;
    const above = windows.find((w) => w.id === id);
    const name = id === caller.id ? who : above ? `${above.name} (${above.windowId}), above it,` : `the closed agent window ${id} above it`;
    return {
      ok: false,
      reason: `${name} has ${below} helper window${below === 1 ? '' : 's'} running (those it started and theirs), and [agents] max_helpers is ${limits.max_helpers}`,
      fix: `stop a helper that is done (\`nerdr stop NAME\`) or hand this to one that runs, or raise [agents] max_helpers in ${configFile}`,
    };
  }
  return { ok: true };
}
