// Factory Droid: read from the screen only; resumed by id.

import { screenOnly } from './screen-only.js';
import { flagThenId } from './types.js';

export const droid = screenOnly({
  id: 'droid',
  description: 'Factory Droid',
  command: ['droid'],
  aliases: ['droid'],
  npm: null,
  otherPackages: [],
  herdr: { source: 'herdr:droid', reports: 'reserved', newSessionOn: null, conversation: 'id', unsequencedSelect: false },
  resume: {
    args: flagThenId('--resume'),
    continue: null,
    guessNewest: false,
    strip: { value: [], optional: ['-r', '--resume'], bare: [] },
    idFlags: [['--resume']],
    idSubcommand: null,
    notFound: null,
  },
});
