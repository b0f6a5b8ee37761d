// oh-my-pi (omp): no wiring of nerdr's own; herdr's extension reports its state and session
// file. It has no --session: `--resume=` takes the conversation back.

import { DEFAULT_ENTER_DELAY_MS, SCREEN_ONLY, type AgentIntegration } from './types.js';

export const omp: AgentIntegration = {
  id: 'omp',
  description: 'oh-my-pi (omp)',
  command: ['omp'],
  npm: null,
  proven: [],
  wiring: SCREEN_ONLY,
  plan: null,
  hooks: null,
  files: null,
  launchWiring: null,
  resume: {
    args: (id) => [`--resume=${id}`],
    continue: null,
    guessNewest: false,
    strip: { value: [], optional: ['--resume'], bare: [] },
    idFlags: [['--resume']],
    idSubcommand: null,
    notFound: null,
  },
  enterDelayMs: DEFAULT_ENTER_DELAY_MS,
};
