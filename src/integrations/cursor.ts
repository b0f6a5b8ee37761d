// Cursor Agent CLI: read from the screen only (it has no hooks nerdr can wire); resumed by id.

import { DEFAULT_ENTER_DELAY_MS, SCREEN_ONLY, flagThenId, type AgentIntegration } from './types.js';

export const cursor: AgentIntegration = {
  id: 'cursor',
  description: 'Cursor Agent CLI',
  command: ['cursor-agent'],
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
    strip: { value: [], optional: ['--resume'], bare: ['--continue'] },
    idFlags: [['--resume']],
    idSubcommand: null,
    notFound: null,
  },
  enterDelayMs: DEFAULT_ENTER_DELAY_MS,
};
