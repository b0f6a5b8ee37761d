import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig, parseConfig } from '../../../src/config.js';
import { launchPlan, type LaunchContext } from '../../../src/integrations/launch.js';
import { CODEX_EVENTS, codexHookFlags, removeCodexSkill, removeCodexTrust, type CodexAppServer, type CodexHookInfo } from '../../../src/integrations/codex.js';
import { mapHookPayload } from '../../../src/integrations/events/index.js';
import { SHARED_FIXTURES } from '../../shared-fixtures.js';

const packageRoot = path.resolve(import.meta.dirname, '..', '..', '..');
let root: string;
let configToml: string;

const label = (ev: string) => ev.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
const keyOf = (ev: string) => `/<session-flags>/config.toml:${label(ev)}:0:0`;
const hashOf = (ev: string) => `sha256:${label(ev)}`;

/** Stands in for `codex app-server`: lists nerdr's -c hooks with a hash, trusts by editing config.toml. */
function fakeServer(calls: string[]): CodexAppServer {
  return {
    async listSessionHooks(_cmd, flags) {
      calls.push('list');
      const state = ((parseToml(readFileSync(configToml, 'utf8')) as { hooks?: { state?: Record<string, { trusted_hash?: string }> } }).hooks?.state) ?? {};
      const out: CodexHookInfo[] = [];
      for (let i = 1; i < flags.length; i += 2) {
        const ev = /^hooks\.(\w+)=/.exec(flags[i]!)![1]!;
        const key = keyOf(ev);
        out.push({ key, currentHash: hashOf(ev), trustStatus: state[key]?.trusted_hash === hashOf(ev) ? 'trusted' : 'untrusted', command: /command="([^"]*)"/.exec(flags[i]!)![1]!.replace(/\\"/g, '"') });
      }
      return out;
    },
    async trust(_cmd, entries) {
      calls.push('trust');
      let text = readFileSync(configToml, 'utf8');
      for (const e of entries) text += `\n[hooks.state."${e.key}"]\ntrusted_hash = "${e.hash}"\n`;
      writeFileSync(configToml, text);
    },
  };
}

function ctx(calls: string[], over: Partial<LaunchContext> & { toml?: string } = {}): LaunchContext {
  const { toml, ...rest } = over;
  return {
    stateDir: path.join(root, 'state'), configDir: path.join(root, 'config'), packageRoot,
    nerdrBin: path.join(root, 'nerdr pkg', 'bin', 'nerdr.js'), cwd: path.join(root, 'proj'), hooks: true,
    config: toml === undefined ? defaultConfig() : parseConfig(toml).config,
    env: { HOME: path.join(root, 'home') }, codexAppServer: fakeServer(calls), ...rest,
  };
}

const USER_CONFIG = 'model = "gpt-5"\n\n[hooks.state."/home/me/.codex/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:mine"\n\n[projects."/home/me/p"]\ntrust_level = "trusted"\n';

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'nerdr-launch-codex-'));
  mkdirSync(path.join(root, 'proj'));
  mkdirSync(path.join(root, 'home', '.codex'), { recursive: true });
  configToml = path.join(root, 'home', '.codex', 'config.toml');
  writeFileSync(configToml, USER_CONFIG);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('codex hook flags', () => {
  it('one -c per event, each a valid TOML value with our quoted command; stable', () => {
    const bin = path.join(root, 'nerdr pkg', 'bin', 'nerdr.js');
    const flags = codexHookFlags(bin);
    expect(flags).toHaveLength(CODEX_EVENTS.length * 2);
    for (let i = 0; i < flags.length; i += 2) {
      expect(flags[i]).toBe('-c');
      const [k, v] = flags[i + 1]!.split(/=(.*)/s);
      const parsed = parseToml(`x = ${v}`) as { x: { hooks: { type: string; command: string; timeout: number }[] }[] };
      expect(parsed.x[0]!.hooks[0]!.command).toBe(`/bin/sh '${path.join(root, 'nerdr pkg', 'hooks', 'nerdr-hook')}' codex`);
      expect(k).toMatch(/^hooks\.[A-Z]\w+$/);
    }
    expect(codexHookFlags(bin)).toEqual(flags);
  });

  it('covers every event in the recorded codex session, which the mapper understands', () => {
    const lines = readFileSync(path.join(SHARED_FIXTURES, 'hooks', 'codex-hooks.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    for (const p of lines.filter((l) => l.hook_event_name)) {
      expect(CODEX_EVENTS as readonly string[]).toContain(p.hook_event_name);
      expect(mapHookPayload('codex', p)).not.toBeNull();
    }
  });
});

describe('codex launch plan and trust', () => {
  it('default (launch): untrusted hooks are not passed, nothing is written, notify is the fallback', async () => {
    const calls: string[] = [];
    const plan = await launchPlan('codex', ['fix it'], ctx(calls));
    expect(plan.argv[0]).toBe('codex');
    expect(plan.argv[1]).toBe('--no-daemon');
    expect(plan.argv.some((a) => a.startsWith('hooks.'))).toBe(false);
    const notify = plan.argv[plan.argv.indexOf('-c') + 1]!;
    expect(parseToml(notify.replace(/^notify=/, 'notify = '))).toEqual({ notify: ['/bin/sh', path.join(root, 'nerdr pkg', 'hooks', 'nerdr-hook'), 'codex', 'notify'] });
    expect(plan.argv.at(-1)).toBe('fix it');
    expect(plan.notes.join()).toMatch(/install codex/);
    expect(readFileSync(configToml, 'utf8')).toBe(USER_CONFIG);
    expect(calls).toEqual(['list']);
  });

  it('a user notify program is never replaced', async () => {
    writeFileSync(configToml, 'notify = ["my-notifier"]\n');
    const plan = await launchPlan('codex', [], ctx([]));
    expect(plan.argv.some((a) => a.startsWith('notify='))).toBe(false);
  });

  it('hooks are passed once codex trusts them; later launches need no app server', async () => {
    const calls: string[] = [];
    for (const ev of CODEX_EVENTS) writeFileSync(configToml, readFileSync(configToml, 'utf8') + `\n[hooks.state."${keyOf(ev)}"]\ntrusted_hash = "${hashOf(ev)}"\n`);
    const plan = await launchPlan('codex', [], ctx(calls));
    expect(plan.argv.filter((a) => a.startsWith('hooks.'))).toHaveLength(CODEX_EVENTS.length);
    expect(plan.argv.some((a) => a.startsWith('notify='))).toBe(false);
    expect(plan.wiring).toBe('launch');
    const again = await launchPlan('codex', [], ctx(calls));
    expect(again.argv).toEqual(plan.argv);
    expect(calls).toEqual(['list']);
  });

  it('install = "home": nerdr has codex record the trust, keeping the user\'s entries', async () => {
    const calls: string[] = [];
    const plan = await launchPlan('codex', [], ctx(calls, { toml: '[agents.codex]\ninstall = "home"\n' }));
    expect(calls).toEqual(['list', 'trust']);
    expect(plan.argv.filter((a) => a.startsWith('hooks.'))).toHaveLength(CODEX_EVENTS.length);
    const cfg = parseToml(readFileSync(configToml, 'utf8')) as { model: string; hooks: { state: Record<string, { trusted_hash: string }> } };
    expect(cfg.model).toBe('gpt-5');
    expect(cfg.hooks.state['/home/me/.codex/hooks.json:stop:0:0']!.trusted_hash).toBe('sha256:mine');
    expect(cfg.hooks.state[keyOf('Stop')]!.trusted_hash).toBe(hashOf('Stop'));
    // the nerdr skill in codex's own skills folder (no launch flag names a skills folder)
    const skill = path.join(root, 'home', '.codex', 'skills', 'nerdr', 'SKILL.md');
    expect(readFileSync(skill, 'utf8')).toBe(readFileSync(path.join(packageRoot, 'hooks', 'skills', 'nerdr', 'SKILL.md'), 'utf8'));
    expect(plan.files).toContain(skill);
    // idempotent
    await launchPlan('codex', [], ctx(calls, { toml: '[agents.codex]\ninstall = "home"\n' }));
    expect(calls).toEqual(['list', 'trust']);
    // once there, a launch-mode codex keeps it current too (an older nerdr's skill is replaced)
    writeFileSync(skill, '---\nname: nerdr\ndescription: old\n---\nold\n');
    expect((await launchPlan('codex', [], ctx(calls))).files).toContain(skill);
    expect(readFileSync(skill, 'utf8')).toBe(readFileSync(path.join(packageRoot, 'hooks', 'skills', 'nerdr', 'SKILL.md'), 'utf8'));
    // uninstall removes only ours
    const removed = removeCodexTrust({ HOME: path.join(root, 'home') }, Object.fromEntries(CODEX_EVENTS.map((e) => [keyOf(e), hashOf(e)])));
    expect(removed).toHaveLength(CODEX_EVENTS.length);
    expect(parseToml(readFileSync(configToml, 'utf8'))).toEqual(parseToml(USER_CONFIG));
    expect(removeCodexSkill({ HOME: path.join(root, 'home') })).toBe(true);
    expect(existsSync(path.dirname(skill))).toBe(false);
    expect(existsSync(path.join(root, 'home', '.codex', 'skills'))).toBe(true);
  });

  it('launch mode writes no skill; a skill named nerdr that is not nerdr\'s is left in CODEX_HOME', async () => {
    const calls: string[] = [];
    await launchPlan('codex', [], ctx(calls));
    expect(existsSync(path.join(root, 'home', '.codex', 'skills'))).toBe(false);
    const codexHomeDir = path.join(root, 'codex-home');
    const mine = path.join(codexHomeDir, 'skills', 'nerdr', 'SKILL.md');
    mkdirSync(path.dirname(mine), { recursive: true });
    writeFileSync(mine, '---\nname: nerdr-mine\ndescription: x\n---\n');
    cpSync(configToml, path.join(codexHomeDir, 'config.toml'));
    configToml = path.join(codexHomeDir, 'config.toml');
    const env = { HOME: path.join(root, 'home'), CODEX_HOME: codexHomeDir };
    const plan = await launchPlan('codex', [], ctx(calls, { env, toml: '[agents.codex]\ninstall = "home"\n' }));
    expect(plan.notes.join(' ')).toContain(`${mine} is not nerdr's skill`);
    expect(readFileSync(mine, 'utf8')).toBe('---\nname: nerdr-mine\ndescription: x\n---\n');
    expect(removeCodexSkill(env)).toBe(false);
  });

  it('resume/fork: wiring goes after the subcommand; other subcommands and --remote get none', async () => {
    const calls: string[] = [];
    const r = await launchPlan('codex', ['resume', '01a22b65-6df2-7030-833c-53900e4b3eb7'], ctx(calls));
    expect(r.argv.slice(0, 3)).toEqual(['codex', 'resume', '--no-daemon']);
    expect(r.argv.at(-1)).toBe('01a22b65-6df2-7030-833c-53900e4b3eb7');
    const e = await launchPlan('codex', ['exec', 'hi'], ctx(calls));
    expect(e.argv).toEqual(['codex', 'exec', 'hi']);
    const rem = await launchPlan('codex', ['--remote', 'unix://'], ctx(calls));
    expect(rem.argv).toEqual(['codex', '--remote', 'unix://']);
  });

  it('--no-hooks: no hooks, but still off the shared daemon (nerdr stops codex by pid)', async () => {
    expect((await launchPlan('codex', ['x'], ctx([], { hooks: false }))).argv).toEqual(['codex', '--no-daemon', 'x']);
    expect((await launchPlan('codex', ['resume', 'ID'], ctx([], { hooks: false }))).argv).toEqual(['codex', 'resume', '--no-daemon', 'ID']);
    expect((await launchPlan('codex', ['--no-daemon'], ctx([], { hooks: false }))).argv).toEqual(['codex', '--no-daemon']);
  });

  it('an app server that fails means no hooks, not a failed launch', async () => {
    const broken: CodexAppServer = { listSessionHooks: async () => { throw new Error('spawn codex ENOENT'); }, trust: async () => {} };
    const plan = await launchPlan('codex', [], ctx([], { codexAppServer: broken }));
    expect(plan.argv.some((a) => a.startsWith('hooks.'))).toBe(false);
    expect(plan.notes.join()).toMatch(/ENOENT/);
  });
});
