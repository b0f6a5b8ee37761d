// Cursor Agent CLI: read from the screen only (it has no hooks nerdr can wire); resumed by id.

import { screenOnly } from './screen-only.js';
import { flagThenId } from './types.js';

export const cursor = screenOnly({
  id: 'cursor',
  description: 'Cursor Agent CLI',
  command: ['cursor-agent'],
  aliases: ['cursor', 'cursor-agent'],
  npm: null,
  otherPackages: [],
  herdr: { source: 'herdr:cursor', reports: 'reserved', newSessionOn: null, conversation: 'id', unsequencedSelect: false },
  resume: {
    args: flagThenId('--resume'),
    continue: null,
    guessNewest: false,
    strip: { value: [], optional: ['--resume'], bare: ['--continue'] },
    idFlags: [['--resume']],
    idSubcommand: null,
    notFound: null,
  },
});
