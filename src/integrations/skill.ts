// The nerdr skill (hooks/skills/nerdr/SKILL.md): what an agent in a nerdr window needs to know to
// start and drive helper agents. Handed to each agent the way it takes skills, with the launch
// and nothing installed where the agent allows it (docs/agents.md, "The nerdr skill").

import { readFileSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import { readText, removeFile, sha, writeIfChanged } from './common.js';
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

/** A SKILL.md is nerdr's when its front matter names the skill `nerdr`. */
export function isNerdrSkill(text: string | undefined): boolean {
  return text !== undefined && /^---\n(?:.*\n)*?name: nerdr\n/.test(text);
}

/** `<skillsDir>/nerdr/SKILL.md`: where an agent that reads a folder of skills finds nerdr's. */
export function skillFileIn(skillsDir: string): string {
  return path.join(skillsDir, 'nerdr', 'SKILL.md');
}

export interface SkillWrite {
  file: string;
  /** true when written, false when already current, a sentence when left alone. */
  result: boolean | string;
}

/**
 * Write the skill into an agent's own skills folder (install = "home"), keeping it current; a
 * skill named nerdr that is not nerdr's is left as it is.
 */
export function writeSkillInto(skillsDir: string, packageRoot: string): SkillWrite {
  const file = skillFileIn(skillsDir);
  const there = readText(file);
  if (there !== undefined && !isNerdrSkill(there)) return { file, result: `${file} is not nerdr's skill: left as it is` };
  return { file, result: writeIfChanged(file, skillText(packageRoot)) };
}

/** Remove the skill from an agent's skills folder, when it is nerdr's. True when removed. */
export function removeSkillFrom(skillsDir: string): boolean {
  const file = skillFileIn(skillsDir);
  if (!isNerdrSkill(readText(file)) || !removeFile(file)) return false;
  try {
    rmdirSync(path.dirname(file)); // the skill's own folder, when nothing else is in it
  } catch {
    /* not empty: left */
  }
  return true;
}
