// nerdr's own simulated agent (`nerdr demo`, src/demo/agent.ts): read from the screen; its
// conversations are not resumed. herdr does not know it (identify finds it by its script's path).

import path from 'node:path';
import { packageRoot } from '../paths.js';
import { screenOnly } from './screen-only.js';

export const demo = screenOnly({
  id: 'demo',
  description: 'the simulated agent bundled with nerdr (for `nerdr demo`)',
  command: [process.execPath, path.join(packageRoot, 'dist', 'demo', 'agent.js')],
  aliases: [],
  npm: null,
  otherPackages: [],
  herdr: null,
  resume: null,
  // its "Do you want to proceed?" box (src/demo/agent.ts): numbered, ❯ marks the selection
  dialogs: { top: null, row: null, denyKeys: null },
});
