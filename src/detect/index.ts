// Detection: which state an agent's screen shows, from rule files ("manifests").
//
// Public API (everything else in src/detect is internal):
//
//   const registry = new ManifestRegistry({ extraDirs, env, onWarning });   // sources.ts order
//   await registry.watch();            // optional: reload on file changes, emits 'change'
//   const loaded = registry.get('claude');                 // LoadedManifest | undefined
//   const result = detectSnapshot(loaded, snapshot);       // ScreenSnapshot from the mirror
//   const result = detectText(loaded, text, { oscTitle, oscProgress });   // plain text screen
//
// A result (DetectionResult) has: state (idle|working|blocked|unknown), rule (winning id or null),
// winner, fallbackReason ("default_known_agent_idle_fallback" when nothing matched),
// visibleIdle/visibleBlocker/visibleWorking, skipStateUpdate, matches (every matching rule),
// hasIdleRules, timings (ms per rule) and disabledRules (rules stopped by the slow-rule guard).
// detectSnapshot/detectText also set `skip`: true when the screen alone, or screen + OSC, is won by
// a skip_state_update rule — the caller should then leave the agent's state as it is.
// detectSnapshot sets `blank` when the screen holds nothing and no rule matched: its state is
// unknown, not the idle fallback.

import type { ScreenSnapshot } from '../types.js';
import { evaluate, type DetectionResult } from './evaluate.js';
import type { LoadedManifest } from './registry.js';
import { rawScreenText, snapshotText } from './text.js';

export { ManifestRegistry, type LoadedManifest, type ManifestProblem, type RegistryOptions } from './registry.js';
export {
  evaluate,
  RuleGuard,
  FALLBACK_REASON,
  MAX_REGION_CHARS,
  type DetectionResult,
  type DetectInput,
  type RuleMatch,
  type RuleTiming,
  type RuleGuardOptions,
} from './evaluate.js';
export { parseManifest, lintManifest, type Manifest, type CompiledRule, type ParseResult } from './schema.js';
export { rawScreenText, snapshotText, rowsToText } from './text.js';
export { ENGINE_VERSION, compareVersionStrings } from './version.js';
export { canonicalAgent, defaultBundledDir, type SourceKind } from './sources.js';
export { inputLine, type InputLine } from './input-line.js';

export interface Detection extends DetectionResult {
  /** Leave the published state unchanged this time (a skip rule won with or without the OSC inputs). */
  skip: boolean;
  /**
   * The screen is blank and no rule matched: the state is unknown. A blank screen tells nothing
   * (an agent still loading: opencode resuming a long session draws nothing for seconds); the
   * idle fallback would call it idle and let a queued message in.
   */
  blank: boolean;
}

export interface OscInputs {
  oscTitle?: string;
  oscProgress?: string;
}

/** Evaluate a detection text (already normalised, see rawScreenText) with the manifest's guard. */
export function detectText(loaded: LoadedManifest, text: string, osc: OscInputs = {}): Detection {
  const oscTitle = osc.oscTitle ?? '';
  const oscProgress = osc.oscProgress ?? '';
  const full = evaluate(loaded.manifest, { text, oscTitle, oscProgress }, { guard: loaded.guard });
  let skip = full.skipStateUpdate;
  // The screen alone is judged again only when a skip rule could win there.
  if (!skip && (oscTitle !== '' || oscProgress !== '') && loaded.manifest.rules.some((r) => r.skipStateUpdate)) {
    skip = evaluate(loaded.manifest, { text }, { guard: loaded.guard }).skipStateUpdate;
  }
  return { ...full, skip, blank: false };
}

/** Evaluate the mirror's snapshot (its rows, OSC title and progress). */
export function detectSnapshot(loaded: LoadedManifest, snapshot: ScreenSnapshot): Detection {
  const det = detectText(loaded, snapshotText(snapshot), { oscTitle: snapshot.oscTitle, oscProgress: snapshot.oscProgress });
  if (det.fallbackReason === null || !snapshot.rows.every((r) => r.trim() === '')) return det;
  return { ...det, state: 'unknown', blank: true };
}

/** Evaluate a raw text screen such as a `tmux capture-pane -p` file (CRLF accepted). */
export function detectRawScreen(loaded: LoadedManifest, raw: string, osc: OscInputs = {}): Detection {
  return detectText(loaded, rawScreenText(raw), osc);
}
