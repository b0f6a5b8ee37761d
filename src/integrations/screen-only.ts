// An agent read from the screen only: no hooks, no planner, no files. What differs between such
// agents (cursor, droid, omp, amp, demo) is who they are and how they resume; the rest is this.

import { DEFAULT_ENTER_DELAY_MS, SCREEN_ONLY, type AgentIntegration } from './types.js';

/** What a screen-only agent states itself; every other field is "none". */
export type ScreenOnlyAgent = Pick<AgentIntegration, 'id' | 'description' | 'command' | 'aliases' | 'npm' | 'otherPackages' | 'herdr' | 'resume'> & Partial<Pick<AgentIntegration, 'dialogs'>>;

export function screenOnly(agent: ScreenOnlyAgent): AgentIntegration {
  return {
    dialogs: null,
    ...agent,
    proven: [],
    wiring: SCREEN_ONLY,
    plan: null,
    hooks: null,
    files: null,
    launchWiring: null,
    statusFile: null,
    enterDelayMs: DEFAULT_ENTER_DELAY_MS,
  };
}
