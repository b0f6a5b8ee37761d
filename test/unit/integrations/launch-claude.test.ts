import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig, parseConfig } from '../../../src/config.js';
import { launchPlan, type LaunchContext } from '../../../src/integrations/launch.js';
import { resumeArgs } from '../../../src/integrations/index.js';
import { CLAUDE_EVENTS } from '../../../src/integrations/claude.js';
import { mapHookPayload } from '../../../src/integrations/events/index.js';
import { SHARED_FIXTURES } from '../../shared-fixtures.js';
import { shellHookPath } from '../../../src/integrations/common.js';

const packageRoot = path.resolve(import.meta.dirname, '..', '..', '..');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let root: string;

function ctx(over: Partial<LaunchContext> & { toml?: string } = {}): LaunchContext {
  const { toml, ...rest } = over;
  return {
    stateDir: path.join(root, 'state'), configDir: path.join(root, 'config'), packageRoot,
    nerdrBin: path.join(root, 'nerdr pkg', 'bin', 'nerdr.js'), cwd: path.join(root, 'proj'), hooks: true,
    config: toml === undefined ? defaultConfig() : parseConfig(toml).config,
    env: { HOME: path.join(root, 'home') }, ...rest,
  };
}

function settingsOf(argv: string[]): { hooks: Record<string, { matcher?: string; hooks: { type: string; command: string; timeout: number }[] }[]> } {
  const i = argv.indexOf('--settings');
  expect(i).toBeGreaterThan(0);
  return JSON.parse(readFileSync(argv[i + 1]!, 'utf8'));
}

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'nerdr-launch-claude-'));
  mkdirSync(path.join(root, 'proj'));
  mkdirSync(path.join(root, 'home'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('claude launch plan', () => {
  it('passes a settings file under <state>/launch with our hook for every event, and a session id', async () => {
    const c = ctx();
    const plan = await launchPlan('claude', ['--model', 'opus', 'fix the bug'], c);
    expect(plan.argv[0]).toBe('claude');
    expect(plan.argv.slice(-3)).toEqual(['--model', 'opus', 'fix the bug']);
    const file = plan.argv[plan.argv.indexOf('--settings') + 1]!;
    expect(file.startsWith(path.join(c.stateDir, 'launch', 'claude') + path.sep)).toBe(true);
    const s = settingsOf(plan.argv);
    expect(Object.keys(s.hooks).sort()).toEqual(CLAUDE_EVENTS.map((e) => e.event).sort());
    for (const [event, groups] of Object.entries(s.hooks)) {
      expect(groups).toHaveLength(1);
      expect(groups[0]!.hooks).toEqual([{ type: 'command', command: `/bin/sh '${shellHookPath(c.nerdrBin)}' claude`, timeout: 10 }]);
      if (event === 'Notification') expect(groups[0]!.matcher).toContain('permission_prompt');
    }
    const sid = plan.argv[plan.argv.indexOf('--session-id') + 1]!;
    expect(sid).toMatch(UUID);
    expect(plan.conversationId).toBe(sid);
    expect(plan.wiring).toBe('launch');
    expect(plan.env).toEqual({});
  });

  it('hands Claude the nerdr skill as a plugin for this launch only (--plugin-dir under <state>/launch); not with --no-hooks', async () => {
    const c = ctx();
    const plan = await launchPlan('claude', [], c);
    const dir = plan.argv[plan.argv.indexOf('--plugin-dir') + 1]!;
    expect(dir.startsWith(path.join(c.stateDir, 'launch', 'claude', 'plugin-'))).toBe(true);
    expect(JSON.parse(readFileSync(path.join(dir, '.claude-plugin', 'plugin.json'), 'utf8'))).toMatchObject({ name: 'nerdr' });
    const skill = readFileSync(path.join(dir, 'skills', 'nerdr', 'SKILL.md'), 'utf8');
    expect(skill).toBe(readFileSync(path.join(packageRoot, 'hooks', 'skills', 'nerdr', 'SKILL.md'), 'utf8'));
    expect(skill).toMatch(/^---\nname: nerdr\ndescription: .+\n---\n/);
    expect(plan.files).toContain(dir);
    // nothing in the user's home
    expect(readdirSync(path.join(root, 'home'))).toEqual([]);
    const off = await launchPlan('claude', [], ctx({ hooks: false }));
    expect(off.argv).not.toContain('--plugin-dir');
  });

  it('registers every event the recorded Claude sessions fired, and the mapper understands them', async () => {
    const plan = await launchPlan('claude', [], ctx());
    const events = new Set(Object.keys(settingsOf(plan.argv).hooks));
    for (const f of ['claude-hooks.jsonl', 'claude-hooks-long-waits.jsonl']) {
      const lines = readFileSync(path.join(SHARED_FIXTURES, 'hooks', f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
      for (const payload of lines.filter((l) => l.hook_event_name)) {
        expect(events.has(payload.hook_event_name)).toBe(true);
        if (payload.hook_event_name !== 'SubagentStart' && !payload.agent_id) expect(mapHookPayload('claude', payload)).not.toBeNull();
      }
    }
  });

  it('the settings file is the same across launches (content-addressed), the session id is not', async () => {
    const a = await launchPlan('claude', [], ctx());
    const b = await launchPlan('claude', [], ctx());
    expect(a.argv[2]).toBe(b.argv[2]);
    expect(a.conversationId).not.toBe(b.conversationId);
  });

  it('keeps the user\'s resume/continue/session-id choice', async () => {
    const id = '11111111-2222-4333-8444-555555555555';
    const r = await launchPlan('claude', ['--resume', id], ctx());
    expect(r.argv).not.toContain('--session-id');
    expect(r.conversationId).toBe(id);
    expect(r.argv.slice(-2)).toEqual(['--resume', id]);
    const f = await launchPlan('claude', ['--resume', id, '--fork-session'], ctx());
    expect(f.conversationId).toBeUndefined();
    const c = await launchPlan('claude', ['-c'], ctx());
    expect(c.argv).not.toContain('--session-id');
    const s = await launchPlan('claude', ['--session-id', id], ctx());
    expect(s.argv.filter((a) => a === '--session-id')).toHaveLength(1);
    expect(s.conversationId).toBe(id);
    expect(resumeArgs('claude', id)).toEqual(['--resume', id]);
    expect(resumeArgs('claude', '--evil')).toBeUndefined();
  });

  it('--no-hooks and hooks = false: no settings, still a session id', async () => {
    const a = await launchPlan('claude', ['x'], ctx({ hooks: false }));
    expect(a.argv).not.toContain('--settings');
    expect(a.argv).toContain('--session-id');
    expect(a.wiring).toBe('off');
    const b = await launchPlan('claude', [], ctx({ toml: '[agents.claude]\nhooks = false\n' }));
    expect(b.argv).not.toContain('--settings');
    const c = await launchPlan('claude', [], ctx({ toml: '[agents.claude]\ninstall = "off"\n' }));
    expect(c.argv).not.toContain('--settings');
  });

  it('config command and args come first, user args last', async () => {
    const plan = await launchPlan('claude', ['hello'], ctx({ toml: '[agents.claude]\ncommand = ["/opt/claude/bin/claude", "--verbose"]\nargs = ["--model", "sonnet"]\n' }));
    expect(plan.argv[0]).toBe('/opt/claude/bin/claude');
    expect(plan.argv[1]).toBe('--verbose');
    expect(plan.argv.slice(-3)).toEqual(['--model', 'sonnet', 'hello']);
  });

  it('merges the user\'s own --settings (file or JSON) instead of passing two', async () => {
    const mine = path.join(root, 'proj', 'mine.json');
    writeFileSync(mine, JSON.stringify({ model: 'x', hooks: { Stop: [{ hooks: [{ type: 'command', command: 'my-stop' }] }] } }));
    const plan = await launchPlan('claude', ['--settings', 'mine.json'], ctx());
    expect(plan.argv.filter((a) => a === '--settings')).toHaveLength(1);
    const s = settingsOf(plan.argv) as unknown as { model: string; hooks: Record<string, { hooks: { command: string }[] }[]> };
    expect(s.model).toBe('x');
    expect(s.hooks.Stop!.map((g) => g.hooks[0]!.command)).toEqual(['my-stop', expect.stringContaining("nerdr-hook' claude")]);
    const inline = await launchPlan('claude', ['--settings={"theme":"dark"}'], ctx());
    expect((settingsOf(inline.argv) as unknown as { theme: string }).theme).toBe('dark');
  });

  it('subcommands and --bare get no wiring', async () => {
    const m = await launchPlan('claude', ['mcp', 'list'], ctx());
    expect(m.argv).toEqual(['claude', 'mcp', 'list']);
    const b = await launchPlan('claude', ['--bare'], ctx());
    expect(b.argv).not.toContain('--settings');
    expect(b.notes.join()).toMatch(/bare/);
  });

  it('says when Claude will ask to trust the folder (hooks wait for it), and nothing is written to ~/.claude.json', async () => {
    const untrusted = await launchPlan('claude', [], ctx());
    expect(untrusted.notes.join()).toMatch(/trust/);
    const cfg = { projects: { [root]: { hasTrustDialogAccepted: true } } };
    writeFileSync(path.join(root, 'home', '.claude.json'), JSON.stringify(cfg));
    const trusted = await launchPlan('claude', [], ctx());
    expect(trusted.notes.join()).not.toMatch(/trust/);
    expect(JSON.parse(readFileSync(path.join(root, 'home', '.claude.json'), 'utf8'))).toEqual(cfg);
  });
});
