// `nerdr.explain`: a window's row, its arbiter's view and its last detection: why it has its state.

import type { MethodHost } from './host.js';
import { method } from './method.js';
import { findTarget } from './target.js';
import { FLOOD_PAUSE_MS } from '../flood.js';

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
    // its output floods: the screen is taken from tmux every FLOOD_PAUSE_MS (src/supervisor/flood.ts)
    flood: a.floodSince === null ? null : { since: a.floodSince, everyMs: FLOOD_PAUSE_MS },
    now: host.clock.now(),
  };
});
