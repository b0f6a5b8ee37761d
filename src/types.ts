// Types shared across the pipeline: %output → mirror → detect → arbiter → lights.
// Kept here so that each stage can be written and tested without the others.

/** Engine states a manifest rule can produce. */
export type EngineState = 'idle' | 'working' | 'blocked' | 'unknown';

/**
 * Published states of an agent (docs/state-rules.md). `exited` is shown when the process ended;
 * `limited` while the agent is at its plan's usage limit (docs/lifecycle.md);
 * `hibernated` when nerdr stopped it to wake it later in its conversation (docs/lifecycle.md).
 */
export type AgentState = 'working' | 'blocked' | 'done' | 'idle' | 'unknown' | 'limited' | 'exited' | 'hibernated';

/** What the mirror hands to detection: a plain view of the live bottom of a pane. */
export interface ScreenSnapshot {
  /** The visible rows, top to bottom, as plain text built cell by cell. */
  rows: string[];
  /** Last OSC 0/2 title the program itself sent ("" when it never sent one). */
  oscTitle: string;
  /** Text after `9;` of the last OSC 9 ("" when none). */
  oscProgress: string;
  altScreen: boolean;
  cursor: { x: number; y: number };
  cols: number;
  /** Number of visible rows of the pane. */
  height: number;
}
