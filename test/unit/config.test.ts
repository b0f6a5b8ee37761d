import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfig, defaultConfig, formatProblem, loadConfig, parseConfig } from '../../src/config.js';

describe('config.toml', () => {
  it('defaults: launch wiring where the agent has it, nothing written for agy/grok, notify on', () => {
    const c = defaultConfig();
    expect(c.agents.claude).toEqual({ install: 'launch', hooks: true, args: [] });
    expect(c.agents.codex!.install).toBe('launch');
    expect(c.agents.agy!.install).toBe('off');
    expect(c.agents.grok!.install).toBe('off');
    expect(c.agents.cursor!.install).toBe('off');
    expect(c.notify).toEqual({ bell: true, osc: true, desktop: true });
    expect(c.lights).toEqual({ auto_install: true });
    expect(agentConfig(c, 'never-heard-of')).toEqual({ install: 'off', hooks: true, args: [] });
  });

  it('reads every documented key', () => {
    const { config, problems } = parseConfig(`
[agents.codex]
install = "home"
hooks = true
args = ["--model", "o3"]
command = ["/opt/codex/bin/codex"]

[agents.grok]
install = "worktree"

[agents.claude]
hooks = false

[lights]
auto_install = false

[notify]
bell = false
osc = true
desktop = false
`);
    expect(problems).toEqual([]);
    expect(config.agents.codex).toEqual({ install: 'home', hooks: true, args: ['--model', 'o3'], command: ['/opt/codex/bin/codex'] });
    expect(config.agents.grok!.install).toBe('worktree');
    expect(config.agents.claude!.hooks).toBe(false);
    expect(config.lights.auto_install).toBe(false);
    expect(config.notify).toEqual({ bell: false, osc: true, desktop: false });
  });

  it('an invalid value is reported with its key and the default is used; the rest still applies', () => {
    const { config, problems } = parseConfig(`
[agents.claude]
install = "home"
args = "--model x"

[agents.codex]
install = "sometimes"
command = []
hooks = "yes"
colour = "red"

[agents.opencode]
install = "worktree"

[notify]
bell = 1
desktop = false
beep = true

[weather]
x = 1
`);
    const byKey = Object.fromEntries(problems.map((p) => [p.key, p]));
    expect(byKey['agents.claude.install']).toMatchObject({ used: '"launch"' });
    expect(byKey['agents.claude.install']!.message).toMatch(/claude supports "launch", "off"/);
    expect(byKey['agents.claude.args']).toMatchObject({ used: '[]' });
    expect(byKey['agents.codex.install']!.message).toMatch(/"launch", "home", "worktree", "off"/);
    expect(byKey['agents.codex.command']).toBeDefined();
    expect(byKey['agents.codex.hooks']).toMatchObject({ used: 'true' });
    expect(byKey['agents.codex.colour']!.message).toMatch(/unknown key/);
    expect(byKey['notify.bell']).toMatchObject({ used: 'true' });
    expect(byKey['notify.beep']).toBeDefined();
    expect(byKey['weather']).toBeDefined();
    expect(config.agents.claude!.install).toBe('launch');
    expect(config.agents.codex).toEqual({ install: 'launch', hooks: true, args: [] });
    expect(config.agents.opencode!.install).toBe('worktree');
    expect(config.notify).toEqual({ bell: true, osc: true, desktop: false });
    expect(formatProblem('/c/config.toml', byKey['notify.bell']!)).toBe('/c/config.toml: notify.bell: must be true or false (got 1); using true');
  });

  it('[detect] idle_after: seconds of quiet output before a program no manifest knows is idle; 0 = off; out of range is reported', () => {
    expect(defaultConfig().detect).toEqual({ idle_after: 3 });
    expect(parseConfig('[detect]\nidle_after = 1.5\n')).toEqual({ config: expect.objectContaining({ detect: { idle_after: 1.5 } }), problems: [] });
    expect(parseConfig('[detect]\nidle_after = 0\n').config.detect.idle_after).toBe(0);
    for (const bad of ['0.1', '7200', '"3"', '-1']) {
      const { config, problems } = parseConfig(`[detect]\nidle_after = ${bad}\n`);
      expect(config.detect.idle_after).toBe(3);
      expect(problems).toEqual([expect.objectContaining({ key: 'detect.idle_after', used: '3' })]);
    }
    expect(parseConfig('[detect]\nquiet = 1\n').problems[0]!.message).toMatch(/unknown key, ignored \(known: idle_after\)/);
  });

  it('[agents] max_helpers and max_depth: 8 and 3 by default; whole numbers 0..1000, else reported and the default kept; no agent of that name', () => {
    expect(defaultConfig().limits).toEqual({ max_helpers: 8, max_depth: 3 });
    const ok = parseConfig('[agents]\nmax_helpers = 2\nmax_depth = 0\n');
    expect(ok.problems).toEqual([]);
    expect(ok.config.limits).toEqual({ max_helpers: 2, max_depth: 0 });
    expect(ok.config.agents).not.toHaveProperty('max_helpers');
    for (const bad of ['1.5', '-1', '1001', '"4"']) {
      const { config, problems } = parseConfig(`[agents]\nmax_helpers = ${bad}\nmax_depth = ${bad}\n`);
      expect(config.limits).toEqual({ max_helpers: 8, max_depth: 3 });
      expect(problems).toEqual([
        { key: 'agents.max_helpers', message: `must be a whole number from 0 to 1000 (got ${bad})`, used: '8' },
        { key: 'agents.max_depth', message: `must be a whole number from 0 to 1000 (got ${bad})`, used: '3' },
      ]);
    }
  });

  it('[agents] on_limit and limit_message: wait and "continue" by default; a bad value is reported and the default kept', () => {
    expect(defaultConfig()).toMatchObject({ onLimit: 'wait', limitMessage: 'continue' });
    const ok = parseConfig('[agents]\non_limit = "resume"\nlimit_message = "go on where you stopped"\n');
    expect(ok.problems).toEqual([]);
    expect(ok.config).toMatchObject({ onLimit: 'resume', limitMessage: 'go on where you stopped' });
    expect(ok.config.agents).not.toHaveProperty('on_limit');
    const bad = parseConfig('[agents]\non_limit = "retry"\nlimit_message = "\\u001b[31mred"\n');
    expect(bad.config).toMatchObject({ onLimit: 'wait', limitMessage: 'continue' });
    expect(bad.problems).toEqual([
      { key: 'agents.on_limit', message: 'must be "wait" (show the limit) or "resume" (type limit_message once it resets) (got "retry")', used: '"wait"' },
      { key: 'agents.limit_message', message: expect.stringMatching(/no control characters/), used: '"continue"' },
    ]);
    expect(parseConfig('[agents]\nlimit_message = ""\n').problems[0]!.key).toBe('agents.limit_message');
  });

  it('a TOML syntax error: defaults, one problem for the file', () => {
    const { config, problems } = parseConfig('[agents.claude\ninstall = ');
    expect(config).toEqual(defaultConfig());
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ key: '', used: 'defaults' });
    expect(problems[0]!.message).toMatch(/^not valid TOML at line 1, column \d+: /);
  });

  it('unknown agents are reported but kept; bad agent names are dropped', () => {
    const { config, problems } = parseConfig('[agents.myagent]\nargs = ["-x"]\n[agents."Bad Name"]\nhooks = false\n');
    expect(config.agents.myagent).toEqual({ install: 'off', hooks: true, args: ['-x'] });
    expect(problems.map((p) => p.key).sort()).toEqual(['agents.Bad Name', 'agents.myagent']);
  });

  it('loadConfig: a missing file is fine, a present one is read', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-config-'));
    try {
      expect(loadConfig(path.join(dir, 'none'))).toMatchObject({ exists: false, problems: [] });
      mkdirSync(path.join(dir, 'c'));
      writeFileSync(path.join(dir, 'c', 'config.toml'), '[agents.gemini]\ninstall = "off"\n');
      const l = loadConfig(path.join(dir, 'c'));
      expect(l.exists).toBe(true);
      expect(l.config.agents.gemini!.install).toBe('off');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
