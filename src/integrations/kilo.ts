// Kilo Code CLI (`kilo`, npm @kilocode/cli): an opencode fork. nerdr's opencode plugin
// (hooks/opencode/nerdr.js) is loaded for the launch through KILO_CONFIG_CONTENT, and reports as
// kilo (NERDR_PLUGIN_AGENT). Its events are opencode's (docs/agents.md). Launch mode only: the
// home and worktree plugin folders are not proven yet.

import type { LaunchPlan, PlanInput } from './types.js';
import { mapKilo } from './events/opencode.js';
import { OPENCODE_RESUME, planOpencodeLike } from './opencode.js';
import { DEFAULT_ENTER_DELAY_MS, type AgentIntegration } from './types.js';

export function planKilo(p: PlanInput): LaunchPlan {
  return planOpencodeLike(p, { agent: 'kilo', contentVar: 'KILO_CONFIG_CONTENT', pureVar: 'KILO_PURE', files: null });
}

export const kilo: AgentIntegration = {
  id: 'kilo',
  description: 'Kilo Code CLI',
  command: ['kilo'],
  aliases: ['kilo', 'kilo-code', 'kilo code'],
  npm: '@kilocode/cli',
  otherPackages: [],
  herdr: { source: 'herdr:kilo', reports: 'full-lifecycle', newSessionOn: null, conversation: 'id', unsequencedSelect: false },
  statusFile: null,
  proven: ['7.7.7'],
  wiring: { modes: ['launch', 'off'], default: 'launch' },
  plan: planKilo,
  hooks: { map: mapKilo, refine: null },
  files: null,
  launchWiring: 'KILO_CONFIG_CONTENT plugin file://<state>/launch/kilo/nerdr.js (nerdr\'s opencode plugin) + skills.paths <state>/launch/kilo/skills (the nerdr skill)',
  resume: OPENCODE_RESUME, // a fork: the same flags and the same "not found" text
  // test/agents/screens/kilo/permission.txt: as opencode's; Esc opens "Reject permission" (a
  // reason to give) and Enter rejects
  dialogs: { top: /Permission required/, row: ['Allow once', 'Allow always', 'Reject'], denyKeys: ['Escape', 'Enter'] },
  enterDelayMs: DEFAULT_ENTER_DELAY_MS,
};
