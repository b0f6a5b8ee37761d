// Factory Droid: read from the screen only; resumed by id.

import { DEFAULT_ENTER_DELAY_MS, SCREEN_ONLY, flagThenId, type AgentIntegration } from './types.js';

export const droid: AgentIntegration = {
  id: 'droid',
  description: 'Factory Droid',
  command: ['droid'],
  npm: null,
  proven: [],
  wiring: SCREEN_ONLY,
  plan: null,
  hooks: null,
  files: null,
  launchWiring: null,
  resume: {
    args: flagThenId('--resume'),
    continue: null,
    guessNewest: false,
    strip: { value: [], optional: ['-r', '--resume'], bare: [] },
    idFlags: [['--resume']],
    idSubcommand: null,
    notFound: null,
  },
  enterDelayMs: DEFAULT_ENTER_DELAY_MS,
};
