import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config.js';
import { launchPlan, type LaunchContext } from '../../../src/integrations/launch.js';
import { resumeArgs } from '../../../src/integrations/index.js';
import { QWEN_EVENTS } from '../../../src/integrations/qwen.js';
import { shellHookPath } from '../../../src/integrations/common.js';

const packageRoot = path.resolve(import.meta.dirname, '..', '..', '..');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let root: string;

function ctx(env: Record<string, string> = {}, hooks = true): LaunchContext {
  return {
    stateDir: path.join(root, 'state'), configDir: path.join(root, 'config'), packageRoot,
    nerdrBin: path.join(root, 'nerdr pkg', 'bin', 'nerdr.js'), cwd: path.join(root, 'proj'), hooks,
    config: defaultConfig(), env: { HOME: path.join(root, 'home'), ...env },
  };
}

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'nerdr-launch-qwen-'));
  mkdirSync(path.join(root, 'proj'));
  mkdirSync(path.join(root, 'home'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('qwen launch plan', () => {
  it('names a system settings file under <state>/launch with our hook for every event, and a session id', async () => {
    // the machine's own system settings (here named by the variable) are kept in it, hooks and all
    const system = path.join(root, 'system.json');
    writeFileSync(system, JSON.stringify({ ui: { theme: 'x' }, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'their-stop' }] }] } }));
    const c = ctx({ QWEN_CODE_SYSTEM_SETTINGS_PATH: system });
    const plan = await launchPlan('qwen', ['--model', 'm'], c);
    expect(plan.argv[0]).toBe('qwen');
    expect(plan.argv.slice(-2)).toEqual(['--model', 'm']);
    const sid = plan.argv[plan.argv.indexOf('--session-id') + 1]!;
    expect(sid).toMatch(UUID);
    expect(plan.conversationId).toBe(sid);
    expect(plan.wiring).toBe('launch');
    const file = plan.env.QWEN_CODE_SYSTEM_SETTINGS_PATH!;
    expect(file.startsWith(path.join(c.stateDir, 'launch', 'qwen') + path.sep)).toBe(true);
    const s = JSON.parse(readFileSync(file, 'utf8')) as { ui: unknown; hooks: Record<string, { hooks: { command: string }[] }[]> };
    expect(s.ui).toEqual({ theme: 'x' });
    expect(Object.keys(s.hooks).sort()).toEqual(QWEN_EVENTS.map((e) => e.event).sort());
    expect(s.hooks.Stop!.map((g) => g.hooks[0]!.command)).toEqual(['their-stop', `/bin/sh '${shellHookPath(c.nerdrBin)}' qwen`]);
  });

  it('an unreadable system settings file leaves the launch unwired, saying why; --no-hooks too', async () => {
    const system = path.join(root, 'broken.json');
    writeFileSync(system, '{ not json');
    const plan = await launchPlan('qwen', [], ctx({ QWEN_CODE_SYSTEM_SETTINGS_PATH: system }));
    expect(plan.wiring).toBe('off');
    expect(plan.env.QWEN_CODE_SYSTEM_SETTINGS_PATH).toBeUndefined();
    expect(plan.notes.join(' ')).toMatch(/could not read Qwen's system settings .*broken\.json/);
    const off = await launchPlan('qwen', [], ctx({}, false));
    expect(off.env.QWEN_CODE_SYSTEM_SETTINGS_PATH).toBeUndefined();
    expect(off.argv).toContain('--session-id');
  });

  it('a resume keeps its id and gets no new one; subcommands and -p are started as given; resume args', async () => {
    const id = '0113a6be-eca4-4d70-8420-eee7cd27ae71';
    const r = await launchPlan('qwen', ['--resume', id], ctx());
    expect(r.argv).not.toContain('--session-id');
    expect(r.conversationId).toBe(id);
    const cont = await launchPlan('qwen', ['--continue'], ctx());
    expect(cont.argv).not.toContain('--session-id');
    for (const args of [['mcp', 'list'], ['-p', 'hi']]) {
      const p = await launchPlan('qwen', args, ctx());
      expect(p.argv).toEqual(['qwen', ...args]);
      expect(p.wiring).toBe('off');
    }
    expect(resumeArgs('qwen', id)).toEqual(['--resume', id]);
  });
});
