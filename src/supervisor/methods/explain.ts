// `nerdr.explain`: a window's row, its arbiter's view and its last detection: why it has its state.

import type { MethodHost } from './host.js';
import { method } from './method.js';
import { findTarget } from './target.js';

export const explain = method('nerdr.explain', (host: Pick<MethodHost, 'windows' | 'row' | 'clock'>, p) => {
  const a = findTarget(host, p.target);
  const d = a.lastDetection;
  return {
    ...host.row(a),
    arbiter: a.arbiter.view(),
    detection: d && {
      at: d.at,
      state: d.result.state,
      rule: d.result.rule,
      fallbackReason: d.result.fallbackReason ?? null,
      blank: d.result.blank,
      visibleIdle: d.result.visibleIdle,
      visibleBlocker: d.result.visibleBlocker,
      visibleWorking: d.result.visibleWorking,
      skip: d.result.skip,
      matches: d.result.matches,
      disabledRules: d.result.disabledRules,
      manifest: d.manifest,
    },
    now: host.clock.now(),
  };
});
