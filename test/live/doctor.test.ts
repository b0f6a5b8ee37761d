// `nerdr doctor` names the tmux it found, the supported range, and what is degraded on it.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveEnv, tmuxAtLeast, tmuxAvailable, type LiveEnv } from './helpers/env.js';

describe.skipIf(!tmuxAvailable)('nerdr doctor and the tmux version', () => {
  let env: LiveEnv;
  beforeAll(async () => {
    env = await startLiveEnv();
  });
  afterAll(async () => {
    await env?.cleanup();
  });

  it('says which tmux it found and what is degraded there', async () => {
    const r = await env.nerdr('doctor', '--json');
    const checks = JSON.parse(r.stdout) as { name: string; ok: boolean; detail: string }[];
    const tmux = checks.find((c) => c.name === 'tmux')!;
    expect(tmux.ok).toBe(true);
    expect(tmux.detail).toMatch(/^tmux \d+\.\d+[a-z]? \(nerdr supports tmux 3\.2a to 3\.7\)$/);
    const features = checks.find((c) => c.name === 'tmux features')!;
    expect(features.ok).toBe(true);
    if (tmuxAtLeast(3, 3)) expect(features.detail).toBe('nothing degraded on this version');
    else expect(features.detail).toMatch(/^degraded: .*ignore-size/);
  });

  it('lists the installed agents with their versions, and says whether the suite proved that version', async () => {
    const bin = mkdtempSync(path.join(os.tmpdir(), 'nerdr-doctor-'));
    try {
      const fake = (name: string, out: string) => {
        writeFileSync(path.join(bin, name), `#!/bin/sh\necho '${out}'\n`);
        chmodSync(path.join(bin, name), 0o755);
      };
      fake('claude', '2.1.197 (Claude Code)');
      fake('codex', 'codex-cli 0.1.0');
      mkdirSync(path.join(bin, 'empty'));
      const r = await env.nerdrWith(['doctor', '--json'], { env: { PATH: `${bin}:/usr/bin:/bin` } });
      const checks = JSON.parse(r.stdout) as { name: string; ok: boolean; detail: string }[];
      expect(checks.find((c) => c.name === 'agent claude')!.detail).toBe("Claude Code: 2.1.197, proven by nerdr's conformance suite");
      expect(checks.find((c) => c.name === 'agent codex')!.detail).toMatch(/^OpenAI Codex CLI: 0\.1\.0, not the proven 0\.171\.0/);
      const agents = checks.find((c) => c.name === 'agents')!;
      expect(agents.detail).toMatch(/^2 installed; not installed: .*opencode \(npm install -g opencode-ai\)/);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it('config problems: one line each under the file, TOML errors with their line', async () => {
    const { writeFileSync, mkdirSync } = await import('node:fs');
    mkdirSync(env.configDir, { recursive: true });
    writeFileSync(path.join(env.configDir, 'config.toml'), '[lights]\nauto_install = "x"\nglyph = 3\n');
    let out = (await env.nerdr('doctor')).stdout;
    const at = out.split('\n').findIndex((l) => l.startsWith('FAIL config: '));
    expect(out.split('\n')[at]).toBe(`FAIL config: ${path.join(env.configDir, 'config.toml')}:`);
    expect(out.split('\n')[at + 1]).toMatch(/^\s+lights\.auto_install: must be true or false/);
    expect(out.split('\n')[at + 2]).toMatch(/^\s+lights\.glyph: unknown key/);
    expect(out.split(path.join(env.configDir, 'config.toml')).length - 1).toBe(1);
    writeFileSync(path.join(env.configDir, 'config.toml'), '[lights]\nauto_install = tru\n');
    out = (await env.nerdr('doctor')).stdout;
    expect(out).toMatch(/not valid TOML at line 2, column \d+/);
    writeFileSync(path.join(env.configDir, 'config.toml'), '');
  });

  it('on tmux before 3.3 the supervisor keeps windows at their size (its control client is ignore-size)', async () => {
    const r = await env.nerdr('new', '-d', '--name', 'sized', '--cmd', 'sleep 100');
    expect(r.code, r.stderr).toBe(0);
    const clients = await env.tmuxOk('list-clients', '-F', '#{client_control_mode} #{client_flags}');
    // the client that reads output (the output keeper beside it is no-output and always ignore-size)
    const control = clients.split('\n').find((l) => l.startsWith('1 ') && !l.includes('no-output'))!;
    if (tmuxAtLeast(3, 3)) expect(control).not.toContain('ignore-size');
    else expect(control).toContain('ignore-size');
    // no window the control client watches is shrunk to 80x24
    const size = (await env.tmuxOk('display', '-p', '-t', r.stdout.trim(), '#{window_width}x#{window_height}')).trim();
    expect(size).not.toBe('80x24');
  });
});
