// Amp: read from the screen only; nerdr cannot resume its conversations.

import { DEFAULT_ENTER_DELAY_MS, SCREEN_ONLY, type AgentIntegration } from './types.js';

export const amp: AgentIntegration = {
  id: 'amp',
  description: 'Amp',
  command: ['amp'],
  npm: '@ampcode/cli', // @sourcegraph/amp says "Renamed to @ampcode/cli"
  proven: [],
  wiring: SCREEN_ONLY,
  plan: null,
  hooks: null,
  files: null,
  launchWiring: null,
  resume: null,
  enterDelayMs: DEFAULT_ENTER_DELAY_MS,
};
