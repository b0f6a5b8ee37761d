// The nerdr skill (hooks/skills/nerdr/SKILL.md): what an agent in a nerdr window needs to know to
// start and drive helper agents. Handed to each agent the way it takes skills, with the launch
// and nothing installed where the agent allows it (docs/agents.md, "The nerdr skill").

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sha, writeIfChanged } from './common.js';
import { NERDR_VERSION } from '../version.js';

/** The skill's file in the package. */
export function skillPath(packageRoot: string): string {
  return path.join(packageRoot, 'hooks', 'skills', 'nerdr', 'SKILL.md');
}

export function skillText(packageRoot: string): string {
  return readFileSync(skillPath(packageRoot), 'utf8');
}

/**
 * A Claude Code plugin holding only the skill, for `claude --plugin-dir`: made under the state
 * folder, one folder per content (like the other launch files), so a running Claude keeps its own.
 */
export function claudeSkillPlugin(stateDir: string, packageRoot: string): string {
  const skill = skillText(packageRoot);
  const manifest = JSON.stringify({ name: 'nerdr', version: NERDR_VERSION, description: 'Drive helper agents with the nerdr CLI' }, null, 2) + '\n';
  const dir = path.join(stateDir, 'launch', 'claude', `plugin-${sha(skill + manifest)}`);
  writeIfChanged(path.join(dir, '.claude-plugin', 'plugin.json'), manifest);
  writeIfChanged(path.join(dir, 'skills', 'nerdr', 'SKILL.md'), skill);
  return dir;
}
