// oh-my-pi (omp): no wiring of nerdr's own; herdr's extension reports its state and session
// file. It has no --session: `--resume=` takes the conversation back.

import { screenOnly } from './screen-only.js';

export const omp = screenOnly({
  id: 'omp',
  description: 'oh-my-pi (omp)',
  command: ['omp'],
  aliases: ['omp'],
  npm: null,
  otherPackages: [],
  herdr: { source: 'herdr:omp', reports: 'full-lifecycle', newSessionOn: ['startup', 'new', 'resume', 'fork'], conversation: 'path', unsequencedSelect: false },
  resume: {
    args: (id) => [`--resume=${id}`],
    continue: null,
    guessNewest: false,
    strip: { value: [], optional: ['--resume'], bare: [] },
    idFlags: [['--resume']],
    idSubcommand: null,
    notFound: null,
  },
});
