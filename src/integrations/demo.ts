// nerdr's own simulated agent (`nerdr demo`, src/demo/agent.ts): read from the screen; its
// conversations are not resumed.

import path from 'node:path';
import { packageRoot } from '../paths.js';
import { DEFAULT_ENTER_DELAY_MS, SCREEN_ONLY, type AgentIntegration } from './types.js';

export const demo: AgentIntegration = {
  id: 'demo',
  description: 'the simulated agent bundled with nerdr (for `nerdr demo`)',
  command: [process.execPath, path.join(packageRoot, 'dist', 'demo', 'agent.js')],
  npm: null,
  proven: [],
  wiring: SCREEN_ONLY,
  plan: null,
  hooks: null,
  files: null,
  launchWiring: null,
  resume: null,
  enterDelayMs: DEFAULT_ENTER_DELAY_MS,
};
