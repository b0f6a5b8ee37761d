// `nerdr.may`: which windows the caller may stop, send to or switch to (`nerdr focus` and
// `nerdr next` ask before they switch): every one for a person or with [agents] control = "all".

import { controlFix, mayControl } from '../control.js';
import type { MethodHost } from './host.js';
import { method } from './method.js';
import { callerOf, node } from './target.js';

export const may = method('nerdr.may', (host: Pick<MethodHost, 'windows' | 'bySecret' | 'control'>, p) => {
  const caller = callerOf(host, p.caller);
  const action = p.action ?? 'focus';
  const control = host.control();
  if (!caller || control.scope === 'all') return { all: true, windows: host.windows().map((a) => a.windowId) };
  const windows = host.windows().filter((a) => mayControl(node(caller), node(a), action, 'own').ok).map((a) => a.windowId);
  return { all: false, caller: caller.windowId, windows, fix: controlFix(control.path) };
});
