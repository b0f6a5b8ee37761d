// Pi coding agent: no wiring of nerdr's own; herdr's extension reports its state and its
// session file, which `--session` takes back (a file or an id).

import { DEFAULT_ENTER_DELAY_MS, SCREEN_ONLY, flagThenId, type AgentIntegration } from './types.js';

export const pi: AgentIntegration = {
  id: 'pi',
  description: 'Pi coding agent',
  command: ['pi'],
  npm: '@mariozechner/pi-coding-agent',
  proven: [],
  wiring: SCREEN_ONLY,
  plan: null,
  hooks: null,
  files: null,
  launchWiring: null,
  resume: {
    args: flagThenId('--session'),
    continue: null,
    guessNewest: false,
    strip: { value: ['--session'], optional: [], bare: [] },
    idFlags: [['--session']],
    idSubcommand: null,
    notFound: null,
  },
  enterDelayMs: DEFAULT_ENTER_DELAY_MS,
};
