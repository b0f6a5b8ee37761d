import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig, parseConfig } from '../../../src/config.js';
import { launchPlan, type LaunchContext } from '../../../src/integrations/launch.js';
import { installFile, uninstallFile, type InstallCtx } from '../../../src/integrations/install.js';
import { agyFiles } from '../../../src/integrations/agy.js';
import { grokFiles } from '../../../src/integrations/grok.js';
import { opencodeFiles } from '../../../src/integrations/opencode.js';
import { copilotFiles, COPILOT_EVENTS } from '../../../src/integrations/copilot.js';
import { GEMINI_EVENTS, geminiFiles, geminiHookCommand } from '../../../src/integrations/gemini.js';
import { mapHookPayload } from '../../../src/integrations/events/index.js';
import { hookParams, ordered, parseSpoolFile, SPOOL_NAME_RE } from '../../../src/supervisor/spool.js';
import { hookArgv, hookCommand, isOurCommand, mentionsOurHook } from '../../../src/integrations/common.js';

const packageRoot = path.resolve(import.meta.dirname, '..', '..', '..');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let root: string;
let home: string;
let proj: string;

function ctx(over: Partial<LaunchContext> & { toml?: string } = {}): LaunchContext {
  const { toml, ...rest } = over;
  return {
    stateDir: path.join(root, 'state'), configDir: path.join(root, 'config'), packageRoot,
    nerdrBin: path.join(root, 'nerdr pkg', 'bin', 'nerdr.js'), cwd: proj, hooks: true,
    config: toml === undefined ? defaultConfig() : parseConfig(toml).config,
    env: { HOME: home }, ...rest,
  };
}
const ictx = (): InstallCtx => ({ env: { HOME: home }, cwd: proj, nerdrBin: path.join(root, 'nerdr pkg', 'bin', 'nerdr.js'), packageRoot, stateDir: path.join(root, 'state') });
const git = (...args: string[]) => execFileSync('git', args, { cwd: proj, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).toString();
const read = (f: string) => readFileSync(f, 'utf8');

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'nerdr-launch-others-'));
  home = path.join(root, 'home');
  proj = path.join(root, 'proj');
  mkdirSync(home);
  mkdirSync(proj);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('kilo (an opencode fork)', () => {
  it('launch: nerdr\'s opencode plugin under <state>/launch/kilo, named in KILO_CONFIG_CONTENT merged with the user\'s, reporting as kilo', async () => {
    const plan = await launchPlan('kilo', ['--model', 'x'], ctx({ env: { HOME: home, KILO_CONFIG_CONTENT: '{"plugin":["mine"],"model":"m"}' } }));
    expect(plan.argv).toEqual(['kilo', '--model', 'x']);
    const file = path.join(root, 'state', 'launch', 'kilo', 'nerdr.js');
    const skills = path.join(root, 'state', 'launch', 'kilo', 'skills');
    expect(JSON.parse(plan.env.KILO_CONFIG_CONTENT!)).toEqual({ plugin: ['mine', `file://${file}`], model: 'm', skills: { paths: [skills] } });
    expect(plan.env.NERDR_OPENCODE_PLUGIN).toBe('1');
    expect(plan.env.NERDR_PLUGIN_AGENT).toBe('kilo');
    expect(plan.env.OPENCODE_CONFIG_CONTENT).toBeUndefined();
    expect(read(file)).toBe(read(path.join(packageRoot, 'hooks', 'opencode', 'nerdr.js')));
  });

  it('--pure, KILO_PURE, --no-hooks and subcommands: no plugin', async () => {
    expect((await launchPlan('kilo', ['--pure'], ctx())).env).toEqual({});
    expect((await launchPlan('kilo', [], ctx({ env: { HOME: home, KILO_PURE: '1' } }))).env).toEqual({});
    expect((await launchPlan('kilo', [], ctx({ hooks: false }))).env).toEqual({});
    expect((await launchPlan('kilo', ['run', 'hi'], ctx())).env).toEqual({});
  });

  it('the plugin writes kilo\'s events as kilo, mapped like opencode\'s', () => {
    const spool = path.join(root, 'state', 'spool', 'k');
    mkdirSync(spool, { recursive: true, mode: 0o700 });
    const env = { ...process.env, NERDR_SOCKET: path.join(root, 'state', 'nerdr-k.sock'), NERDR_TAB: 's', NERDR_OPENCODE_PLUGIN: '1', NERDR_PLUGIN_AGENT: 'kilo' };
    const script = `
      const m = await import(${JSON.stringify(path.join(packageRoot, 'hooks', 'opencode', 'nerdr.js'))});
      if (process.env.NERDR_PLUGIN_AGENT !== undefined) throw new Error('agent marker not removed');
      const h = await m.NerdrPlugin({});
      await h.event({ event: { type: 'permission.replied', properties: { sessionID: 'root', requestID: 'p1', reply: 'reject' } } });`;
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { env, timeout: 10_000 });
    const names = readdirSync(spool);
    expect(names).toHaveLength(1);
    const p = parseSpoolFile(names[0]!, readFileSync(path.join(spool, names[0]!)));
    if (!('entry' in p)) throw new Error(p.malformed);
    expect(p.entry.agent).toBe('kilo');
    expect(mapHookPayload('kilo', hookParams(p.entry).event)).toMatchObject({ agent: 'kilo', kind: 'answered', denied: true, conversationId: 'root' });
    rmSync(spool, { recursive: true });
  });
});

describe('opencode', () => {
  it('launch: the plugin copied under <state>/launch/opencode and named in OPENCODE_CONFIG_CONTENT (no extra config dir, whose plugin SDK opencode would npm-install); user config untouched', async () => {
    const plan = await launchPlan('opencode', ['--model', 'x'], ctx());
    expect(plan.argv).toEqual(['opencode', '--model', 'x']);
    const file = path.join(root, 'state', 'launch', 'opencode', 'nerdr.js');
    const skills = path.join(root, 'state', 'launch', 'opencode', 'skills');
    expect(plan.env).toEqual({ OPENCODE_CONFIG_CONTENT: JSON.stringify({ plugin: [`file://${file}`], skills: { paths: [skills] } }), NERDR_OPENCODE_PLUGIN: '1' });
    // the nerdr skill, in the skill folder named for this launch
    expect(read(path.join(skills, 'nerdr', 'SKILL.md'))).toMatch(/^---\nname: nerdr\n/);
    expect(read(file)).toBe(read(path.join(packageRoot, 'hooks', 'opencode', 'nerdr.js')));
    // nothing that would replace the user's own config (OPENCODE_CONFIG, DISABLE_PROJECT_CONFIG)
    expect(Object.keys(plan.env).some((k) => /OPENCODE_CONFIG$|DISABLE/.test(k))).toBe(false);
    expect(existsSync(path.join(home, '.config'))).toBe(false);
  });

  it('a user OPENCODE_CONFIG_DIR is kept: the plugin comes through OPENCODE_CONFIG_CONTENT, merged with theirs', async () => {
    const plan = await launchPlan('opencode', [], ctx({ env: { HOME: home, OPENCODE_CONFIG_DIR: '/mine', OPENCODE_CONFIG_CONTENT: '{"plugin":["x"],"model":"m","skills":{"paths":["/my/skills"]}}' } }));
    expect(plan.env.OPENCODE_CONFIG_DIR).toBeUndefined();
    expect(JSON.parse(plan.env.OPENCODE_CONFIG_CONTENT!)).toEqual({
      plugin: ['x', `file://${path.join(root, 'state', 'launch', 'opencode', 'nerdr.js')}`],
      model: 'm',
      skills: { paths: ['/my/skills', path.join(root, 'state', 'launch', 'opencode', 'skills')] },
    });
  });

  it('--pure and --no-hooks: no plugin', async () => {
    expect((await launchPlan('opencode', ['--pure'], ctx())).env).toEqual({});
    expect((await launchPlan('opencode', [], ctx({ hooks: false }))).env).toEqual({});
  });

  it('the plugin is active only with the launch marker, and writes the events in order into the spool, from its own process', async () => {
    const spool = path.join(root, 'state', 'spool', 'k');
    mkdirSync(spool, { recursive: true, mode: 0o700 });
    const env = { ...process.env, NERDR_SOCKET: path.join(root, 'state', 'nerdr-k.sock'), NERDR_TAB: 's', NERDR_OPENCODE_PLUGIN: '1' };
    const script = `
      const m = await import(${JSON.stringify(path.join(packageRoot, 'hooks', 'opencode', 'nerdr.js'))});
      if (process.env.NERDR_OPENCODE_PLUGIN !== undefined) throw new Error('marker not removed');
      const h = await m.NerdrPlugin({});
      if (h.event) {
      await h.event({ event: { type: 'session.updated', properties: { info: { id: 'child', parentID: 'root' } } } });
      await h['chat.message']({ sessionID: 'root' });
      await h.event({ event: { type: 'permission.asked', properties: { sessionID: 'child', id: 'p1', permission: 'bash' } } });
      await h.event({ event: { type: 'message.part.delta', properties: {} } });
      await h.event({ event: { type: 'session.idle', properties: { sessionID: 'root' } } });
      }`;
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { env, timeout: 10_000 });
    const names = readdirSync(spool);
    expect(names.every((n) => SPOOL_NAME_RE.test(n))).toBe(true);
    const entries = ordered(names.map((n) => {
      const p = parseSpoolFile(n, readFileSync(path.join(spool, n)));
      if (!('entry' in p)) throw new Error(`${n}: ${p.malformed}`);
      return p.entry;
    }));
    expect(entries.map((e) => `${e.agent} ${e.event} ${e.secret}`)).toEqual(['opencode chat.message s', 'opencode permission.asked s', 'opencode session.idle s']);
    for (const n of names) expect(statSync(path.join(spool, n)).mode & 0o777).toBe(0o600);
    const perm = hookParams(entries[1]!).event;
    expect(mapHookPayload('opencode', perm)).toMatchObject({ kind: 'permission', subagent: true });
    expect(mapHookPayload('opencode', hookParams(entries[2]!).event)).toMatchObject({ kind: 'turn-end', conversationId: 'root' });
    // without the marker: inactive
    rmSync(spool, { recursive: true });
    mkdirSync(spool);
    execFileSync(process.execPath, ['--input-type=module', '-e', script.replace("if (process.env.NERDR_OPENCODE_PLUGIN !== undefined) throw new Error('marker not removed');", '')], { env: { ...env, NERDR_OPENCODE_PLUGIN: '' }, timeout: 10_000 });
    expect(readdirSync(spool)).toEqual([]);
    // no spool folder (no supervisor made one): nothing written, nothing thrown
    rmSync(spool, { recursive: true });
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { env, timeout: 10_000 });
    expect(existsSync(spool)).toBe(false);
  });

  it('home install: idempotent, removable, a user-edited file is left alone', () => {
    const r1 = installFile(opencodeFiles, 'home', ictx());
    expect(r1.changed).toBe(true);
    expect(r1.files[0]).toBe(path.join(home, '.config', 'opencode', 'plugins', 'nerdr.js'));
    expect(installFile(opencodeFiles, 'home', ictx()).changed).toBe(false);
    expect(uninstallFile(opencodeFiles, 'home', ictx()).changed).toBe(true);
    expect(existsSync(r1.files[0]!)).toBe(false);
    writeFileSync(r1.files[0]!, '// my own plugin\n');
    expect(installFile(opencodeFiles, 'home', ictx()).changed).toBe(false);
    expect(uninstallFile(opencodeFiles, 'home', ictx()).changed).toBe(false);
    expect(read(r1.files[0]!)).toBe('// my own plugin\n');
  });
});

describe('copilot', () => {
  it('launch: --plugin-dir with an inline-hooks manifest, camelCase events with the event name as hint, --session-id', async () => {
    const plan = await launchPlan('copilot', ['--model', 'x'], ctx());
    const dir = plan.argv[plan.argv.indexOf('--plugin-dir') + 1]!;
    expect(dir.startsWith(path.join(root, 'state', 'launch', 'copilot'))).toBe(true);
    const m = JSON.parse(read(path.join(dir, '.plugin', 'plugin.json')));
    expect(m.name).toBe('nerdr');
    expect(Object.keys(m.hooks).sort()).toEqual(COPILOT_EVENTS.map((e) => e.event).sort());
    expect(m.hooks.preToolUse).toBeUndefined();
    expect(m.hooks.agentStop[0].bash).toBe(`/bin/sh '${path.join(root, 'nerdr pkg', 'hooks', 'nerdr-hook')}' copilot agentStop`);
    // the nerdr skill rides in the same plugin
    expect(read(path.join(dir, 'skills', 'nerdr', 'SKILL.md'))).toMatch(/^---\nname: nerdr\n/);
    expect(plan.conversationId).toMatch(UUID);
    expect(plan.argv.slice(-2)).toEqual(['--model', 'x']);
    // the hint makes the camelCase payloads mappable
    expect(mapHookPayload('copilot', { sessionId: 's', stopReason: 'end_turn' }, 'agentStop')).toMatchObject({ kind: 'turn-end' });
    const resumed = await launchPlan('copilot', ['--resume=abc'], ctx());
    expect(resumed.argv).not.toContain('--session-id');
  });

  it('worktree install in a git repo: excluded from git, idempotent, marker-respecting uninstall removes the folder', () => {
    git('init', '-q');
    const r = installFile(copilotFiles, 'worktree', ictx());
    expect(r.files[0]).toBe(path.join(proj, '.copilot', 'nerdr-plugin', '.plugin', 'plugin.json'));
    expect(git('status', '--porcelain')).toBe('');
    expect(read(path.join(proj, '.git', 'info', 'exclude'))).toContain('# added by nerdr: /.copilot/nerdr-plugin/.plugin/plugin.json\n/.copilot/nerdr-plugin/.plugin/plugin.json\n');
    expect(installFile(copilotFiles, 'worktree', ictx()).changed).toBe(false);
    expect(read(path.join(proj, '.git', 'info', 'exclude')).match(/added by nerdr/g)).toHaveLength(1);
    uninstallFile(copilotFiles, 'worktree', ictx(), proj);
    expect(existsSync(path.join(proj, '.copilot'))).toBe(false);
    expect(read(path.join(proj, '.git', 'info', 'exclude'))).not.toContain('nerdr');
  });
});

describe('gemini', () => {
  const ext = () => path.join(home, '.gemini', 'extensions', 'nerdr');

  it('default: nothing written, a note says how to opt in; still --session-id', async () => {
    const plan = await launchPlan('gemini', ['-m', 'x'], ctx());
    expect(plan).toMatchObject({ wiring: 'off', env: {} });
    expect(plan.notes.join(' ')).toContain('nerdr integrations install gemini');
    expect(existsSync(path.join(home, '.gemini'))).toBe(false);
    expect(plan.argv.slice(0, 2)).toEqual(['gemini', '--session-id']);
    expect(plan.conversationId).toMatch(UUID);
    expect(plan.argv.slice(-2)).toEqual(['-m', 'x']);
    expect(plan.argv).not.toContain('--skip-trust');
  });

  it('home: an extension with hooks guarded by NERDR_GEMINI_HOOKS, set for this launch only', async () => {
    const plan = await launchPlan('gemini', [], ctx({ toml: '[agents.gemini]\ninstall = "home"\n' }));
    expect(plan).toMatchObject({ wiring: 'home', env: { NERDR_GEMINI_HOOKS: '1' } });
    const hooks = JSON.parse(read(path.join(ext(), 'hooks', 'hooks.json'))).hooks;
    expect(Object.keys(hooks).sort()).toEqual(GEMINI_EVENTS.map((e) => e.event).sort());
    expect(hooks.AfterAgent[0].hooks[0]).toMatchObject({ type: 'command', name: 'nerdr-AfterAgent', timeout: 10000 });
    expect(hooks.AfterAgent[0].hooks[0].command).toBe(`[ "$NERDR_GEMINI_HOOKS" != 1 ] || /bin/sh '${path.join(root, 'nerdr pkg', 'hooks', 'nerdr-hook')}' gemini AfterAgent`);
    expect(hooks.BeforeTool[0].matcher).toBe('.*');
    expect(JSON.parse(read(path.join(ext(), 'gemini-extension.json')))).toMatchObject({ name: 'nerdr', description: expect.stringContaining('Managed by nerdr') });
    // the nerdr skill rides in the extension (Gemini loads an extension's skills/)
    expect(read(path.join(ext(), 'skills', 'nerdr', 'SKILL.md'))).toBe(read(path.join(packageRoot, 'hooks', 'skills', 'nerdr', 'SKILL.md')));
    expect(plan.files).toContain(path.join(ext(), 'skills', 'nerdr', 'SKILL.md'));
  });

  it('a skill named nerdr in the extension that is not nerdr\'s is left alone; the rest is written', async () => {
    const mine = '---\nname: something-else\ndescription: mine\n---\nmine\n';
    mkdirSync(path.join(ext(), 'skills', 'nerdr'), { recursive: true });
    writeFileSync(path.join(ext(), 'skills', 'nerdr', 'SKILL.md'), mine);
    const plan = await launchPlan('gemini', [], ctx({ toml: '[agents.gemini]\ninstall = "home"\n' }));
    expect(plan.wiring).toBe('home');
    expect(plan.notes.join(' ')).toContain(`${path.join(ext(), 'skills', 'nerdr', 'SKILL.md')} is not nerdr's`);
    expect(read(path.join(ext(), 'skills', 'nerdr', 'SKILL.md'))).toBe(mine);
    uninstallFile(geminiFiles, 'home', ictx(), path.join(home, '.gemini'));
    expect(read(path.join(ext(), 'skills', 'nerdr', 'SKILL.md'))).toBe(mine);
  });

  it('the guard: the hook command runs nerdr only where NERDR_GEMINI_HOOKS=1, and always exits 0', () => {
    // a package whose shell hook records that it ran and fails
    const bin = path.join(root, 'fake-pkg', 'bin', 'nerdr.js');
    mkdirSync(path.join(root, 'fake-pkg', 'hooks'), { recursive: true });
    writeFileSync(path.join(root, 'fake-pkg', 'hooks', 'nerdr-hook'), `echo ran >> '${path.join(root, 'ran.txt')}'\nexit 3\n`);
    const cmd = geminiHookCommand(bin, 'AfterAgent');
    const sh = (env: Record<string, string>) => spawnSync('/bin/sh', ['-c', cmd], { env: { PATH: '/usr/bin:/bin', ...env } }).status;
    expect(sh({})).toBe(0);
    expect(existsSync(path.join(root, 'ran.txt'))).toBe(false);
    sh({ NERDR_GEMINI_HOOKS: '1' });
    expect(read(path.join(root, 'ran.txt'))).toBe('ran\n');
  });

  it('once installed it is used by default and kept current; --no-hooks and hooks = false do not use it', async () => {
    expect(installFile(geminiFiles, 'home', ictx()).changed).toBe(true);
    expect(installFile(geminiFiles, 'home', ictx()).changed).toBe(false);
    const plan = await launchPlan('gemini', [], ctx());
    expect(plan).toMatchObject({ wiring: 'home', env: { NERDR_GEMINI_HOOKS: '1' } });
    expect((await launchPlan('gemini', [], ctx({ hooks: false }))).env).toEqual({});
    expect((await launchPlan('gemini', [], ctx({ toml: '[agents.gemini]\nhooks = false\n' }))).env).toEqual({});
    uninstallFile(geminiFiles, 'home', ictx(), path.join(home, '.gemini'));
    expect(existsSync(ext())).toBe(false);
    expect(existsSync(path.join(home, '.gemini'))).toBe(true);
  });

  it('an extension named nerdr that is not ours is left alone, and not used', async () => {
    mkdirSync(path.join(ext(), 'hooks'), { recursive: true });
    writeFileSync(path.join(ext(), 'hooks', 'hooks.json'), '{"hooks":{}}\n');
    writeFileSync(path.join(ext(), 'gemini-extension.json'), '{"name":"nerdr","version":"9"}\n');
    const plan = await launchPlan('gemini', [], ctx({ toml: '[agents.gemini]\ninstall = "home"\n' }));
    expect(plan).toMatchObject({ wiring: 'off', env: {} });
    expect(read(path.join(ext(), 'hooks', 'hooks.json'))).toBe('{"hooks":{}}\n');
    expect(read(path.join(ext(), 'gemini-extension.json'))).toBe('{"name":"nerdr","version":"9"}\n');
    expect(uninstallFile(geminiFiles, 'home', ictx(), path.join(home, '.gemini')).changed).toBe(false);
  });
});

describe('agy and grok: files only, off unless asked', () => {
  it('default: nothing wired, nothing written', async () => {
    for (const a of ['agy', 'grok']) {
      const plan = await launchPlan(a, ['x'], ctx());
      expect(plan).toMatchObject({ argv: [a, 'x'], env: {}, wiring: 'off' });
    }
    expect(existsSync(path.join(home, '.gemini'))).toBe(false);
    expect(existsSync(path.join(home, '.grok'))).toBe(false);
  });

  it('agy home: our "nerdr" key added, other hooks and the user\'s enabled flag kept, idempotent, uninstall leaves theirs', async () => {
    const file = path.join(home, '.gemini', 'config', 'hooks.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ theirs: { Stop: [{ type: 'command', command: 'their-stop' }] } }));
    const plan = await launchPlan('agy', [], ctx({ toml: '[agents.agy]\ninstall = "home"\n' }));
    expect(plan.env).toEqual({ NERDR_AGY_HOOK: '1' });
    const j = JSON.parse(read(file));
    expect(j.theirs).toEqual({ Stop: [{ type: 'command', command: 'their-stop' }] });
    expect(j.nerdr.Stop[0].command).toMatch(/nerdr-hook' agy Stop$/);
    expect(j.nerdr.PreToolUse[0]).toMatchObject({ matcher: 'invoke_subagent' });
    j.nerdr.enabled = false;
    writeFileSync(file, JSON.stringify(j));
    expect(installFile(agyFiles, 'home', ictx()).changed).toBe(true); // reformatted once
    expect(JSON.parse(read(file)).nerdr.enabled).toBe(false);
    expect(installFile(agyFiles, 'home', ictx()).changed).toBe(false);
    uninstallFile(agyFiles, 'home', ictx());
    expect(JSON.parse(read(file))).toEqual({ theirs: { Stop: [{ type: 'command', command: 'their-stop' }] } });
    expect(uninstallFile(agyFiles, 'home', ictx()).changed).toBe(false);
    expect(mapHookPayload('agy', { conversationId: 'c', terminationReason: 'NO_TOOL_CALL' }, 'Stop')).toMatchObject({ kind: 'turn-end' });
  });

  it('agy: a broken hooks file is never rewritten', () => {
    const file = path.join(home, '.gemini', 'config', 'hooks.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '{ not json');
    const r = installFile(agyFiles, 'home', ictx());
    expect(r.changed).toBe(false);
    expect(read(file)).toBe('{ not json');
  });

  it('grok worktree: made, git-excluded; tracked or turned-off files are left alone; uninstall cleans up', async () => {
    git('init', '-q');
    const plan = await launchPlan('grok', [], ctx({ toml: '[agents.grok]\ninstall = "worktree"\n' }));
    const file = path.join(proj, '.grok', 'hooks', 'nerdr.json');
    expect(plan.files[0]).toBe(file);
    expect(JSON.parse(read(file)).hooks.Stop[0].hooks[0].command).toMatch(/nerdr-hook' grok Stop$/);
    expect(git('status', '--porcelain')).toBe('');
    uninstallFile(grokFiles, 'worktree', ictx(), proj);
    expect(existsSync(file)).toBe(false);
    expect(read(path.join(proj, '.git', 'info', 'exclude'))).not.toContain('nerdr');
    // turned off by the user: {}
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '{}');
    expect(installFile(grokFiles, 'worktree', ictx()).changed).toBe(false);
    expect(read(file)).toBe('{}');
    // tracked by the repository
    git('add', '-f', '.grok/hooks/nerdr.json');
    git('commit', '-q', '-m', 'x');
    const r = installFile(grokFiles, 'worktree', ictx());
    expect(r.notes.join()).toMatch(/tracked/);
    expect(read(file)).toBe('{}');
  });

  it('grok home: others\' files in ~/.grok/hooks untouched', () => {
    const other = path.join(home, '.grok', 'hooks', 'herdr.json');
    mkdirSync(path.dirname(other), { recursive: true });
    writeFileSync(other, '{"hooks":{}}');
    installFile(grokFiles, 'home', ictx());
    uninstallFile(grokFiles, 'home', ictx());
    expect(read(other)).toBe('{"hooks":{}}');
    expect(existsSync(path.join(home, '.grok', 'hooks', 'nerdr.json'))).toBe(false);
  });
});

describe('agents without hooks', () => {
  it('are started as given', async () => {
    expect(await launchPlan('cursor', ['x'], ctx())).toMatchObject({ argv: ['cursor-agent', 'x'], env: {}, wiring: 'off' });
    await expect(launchPlan('nope', [], ctx())).rejects.toThrow(/unknown agent/);
  });
});

describe('which hook commands are nerdr\'s', () => {
  it('the shell hook and the older `nerdr hook` commands both count, quoted or not; another agent\'s do not', () => {
    const bin = '/opt/my nerdr/bin/nerdr.js';
    const ours = [hookCommand(bin, 'grok', 'Stop'), hookCommand('/opt/nerdr/bin/nerdr.js', 'grok'), `'${bin}' hook grok Stop`, '/opt/nerdr/bin/nerdr.js hook grok'];
    for (const c of ours) expect(isOurCommand(c, 'grok'), c).toBe(true);
    expect(isOurCommand(hookCommand(bin, 'gemini'), 'grok')).toBe(false);
    expect(isOurCommand('my-script hook grokker', 'grok')).toBe(false);
    expect(mentionsOurHook(JSON.stringify({ command: hookCommand(bin, 'gemini', 'AfterAgent') }), 'gemini')).toBe(true);
    expect(hookArgv(bin, 'codex', 'notify')).toEqual(['/bin/sh', '/opt/my nerdr/hooks/nerdr-hook', 'codex', 'notify']);
  });
});
