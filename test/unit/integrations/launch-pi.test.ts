import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config.js';
import { launchPlan, type LaunchContext } from '../../../src/integrations/launch.js';
import { resumeArgs } from '../../../src/integrations/index.js';

const packageRoot = path.resolve(import.meta.dirname, '..', '..', '..');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let root: string;

function ctx(hooks = true): LaunchContext {
  return {
    stateDir: path.join(root, 'state'), configDir: path.join(root, 'config'), packageRoot,
    nerdrBin: path.join(root, 'nerdr pkg', 'bin', 'nerdr.js'), cwd: path.join(root, 'proj'), hooks,
    config: defaultConfig(), env: { HOME: path.join(root, 'home') },
  };
}

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'nerdr-launch-pi-'));
  mkdirSync(path.join(root, 'proj'));
  mkdirSync(path.join(root, 'home'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('pi launch plan', () => {
  it('loads nerdr\'s extension and skill from <state>/launch/pi and names a session id', async () => {
    const plan = await launchPlan('pi', ['--model', 'm'], ctx());
    expect(plan.argv[0]).toBe('pi');
    expect(plan.argv.slice(-2)).toEqual(['--model', 'm']);
    const sid = plan.argv[plan.argv.indexOf('--session-id') + 1]!;
    expect(sid).toMatch(UUID);
    expect(plan.conversationId).toBe(sid);
    const ext = plan.argv[plan.argv.indexOf('-e') + 1]!;
    expect(ext).toBe(path.join(root, 'state', 'launch', 'pi', 'nerdr.js'));
    expect(readFileSync(ext, 'utf8')).toBe(readFileSync(path.join(packageRoot, 'hooks', 'pi', 'nerdr.js'), 'utf8'));
    const skills = plan.argv[plan.argv.indexOf('--skill') + 1]!;
    expect(readFileSync(path.join(skills, 'SKILL.md'), 'utf8')).toMatch(/^---\nname: nerdr\n/);
    expect(plan.env).toEqual({ NERDR_PI_EXTENSION: '1' });
    expect(plan.wiring).toBe('launch');
    // nothing in the user's pi folder
    expect(() => readFileSync(path.join(root, 'home', '.pi', 'agent', 'settings.json'))).toThrow();
  });

  it('a resume keeps its id and gets no new one; subcommands and print mode are started as given', async () => {
    const id = '70c4066d-7cb9-4112-ab00-049cd69141ce';
    const resumed = await launchPlan('pi', ['--session', id], ctx());
    expect(resumed.argv).not.toContain('--session-id');
    expect(resumed.conversationId).toBe(id);
    const partial = await launchPlan('pi', ['--session', '70c4'], ctx());
    expect(partial.conversationId).toBeUndefined();
    expect(partial.argv).toContain('-e');
    const named = await launchPlan('pi', ['--session-id', id], ctx());
    expect(named.argv.filter((a) => a === '--session-id')).toHaveLength(1);
    expect(named.conversationId).toBe(id);
    for (const args of [['-c'], ['--continue'], ['-r'], ['--fork', id], ['--no-session']]) {
      const p = await launchPlan('pi', args, ctx());
      expect(p.argv, args.join(' ')).not.toContain('--session-id');
      expect(p.conversationId).toBeUndefined();
    }
    for (const args of [['install', 'npm:x'], ['-p', 'hi'], ['--mode', 'rpc'], ['--version'], ['auth', 'login']]) {
      const p = await launchPlan('pi', args, ctx());
      expect(p.argv).toEqual(['pi', ...args]);
      expect(p.wiring).toBe('off');
    }
    expect(resumeArgs('pi', id)).toEqual(['--session', id]);
  });

  it('--no-hooks starts pi with a session id and nothing of nerdr\'s loaded', async () => {
    const plan = await launchPlan('pi', [], ctx(false));
    expect(plan.argv).not.toContain('-e');
    expect(plan.argv).toContain('--session-id');
    expect(plan.env).toEqual({});
    expect(plan.wiring).toBe('off');
  });
});
