// Amp: read from the screen only; nerdr cannot resume its conversations.

import { screenOnly } from './screen-only.js';

export const amp = screenOnly({
  id: 'amp',
  description: 'Amp',
  command: ['amp'],
  aliases: ['amp', 'amp-local'],
  npm: '@ampcode/cli',
  otherPackages: ['@sourcegraph/amp'], // its former name: "Renamed to @ampcode/cli"
  herdr: null,
  resume: null,
});
