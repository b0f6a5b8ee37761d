// `nerdr selftest claude` through the real CLI, with the real Claude Code of the real-agent
// suite's cache (.cache/agents; installed there from npm when it is missing), a scratch HOME and
// state folder: every phase right, the table on stdout, the screens saved, nothing left running.
// Part of `npm run test:agents` (it installs and runs a real agent); the refusals, which need no
// agent, are in test/live/selftest.test.ts.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENTS } from '../../src/integrations/agents.js';
import { install, installedVersion } from './setup.js';
import { BIN_DIR, CACHE_DIR } from './versions.js';
import { assertBuilt, NERDR_BIN, run, tmuxAvailable } from '../live/helpers/env.js';

const PINNED = AGENTS.claude!.proven[0]!;

/**
 * What a selftest run of this id left: its tmux server's socket, and its scratch folder (a
 * /tmp/nerdr-selftest-* holding `<agent>-<id>`). Only this run's: a user's own selftest may run
 * beside the test.
 */
function selftestLeftovers(id: string): string[] {
  const sockets = path.join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`);
  const list = (d: string): string[] => {
    try {
      return readdirSync(d);
    } catch {
      return [];
    }
  };
  const scratch = list(os.tmpdir()).filter((n) => n.startsWith('nerdr-selftest-') && list(path.join(os.tmpdir(), n)).some((k) => k.endsWith(`-${id}`)));
  return [...list(sockets).filter((n) => n === `nerdr-selftest-${id}`), ...scratch];
}

describe.skipIf(!tmuxAvailable)('nerdr selftest', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  let claudeProblem = '';

  beforeAll(() => {
    assertBuilt();
    home = mkdtempSync(path.join(os.tmpdir(), 'nerdr-live-selftest-'));
    env = { ...process.env, HOME: home, NERDR_STATE_DIR: path.join(home, 'state'), NERDR_CONFIG_DIR: path.join(home, 'config') };
    for (const k of Object.keys(env)) if (k === 'TMUX' || k === 'TMUX_PANE' || k.startsWith('XDG_')) delete env[k];
    // the suite's cached install; a clean clone installs the pinned version there first
    if (installedVersion(CACHE_DIR, '@anthropic-ai/claude-code') !== PINNED) claudeProblem = install(CACHE_DIR, [`@anthropic-ai/claude-code@${PINNED}`]);
    if (!claudeProblem && !existsSync(path.join(BIN_DIR, 'claude'))) claudeProblem = `no claude in ${BIN_DIR} after npm install`;
  }, 600_000);

  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
  });

  it('proves the installed Claude Code: every light right, the table on stdout, screens kept, nothing left running', async () => {
    expect(claudeProblem).toBe('');
    const r = await run(process.execPath, [NERDR_BIN, 'selftest', 'claude'], { env: { ...env, PATH: `${BIN_DIR}:${env.PATH}` }, timeoutMs: 300_000 });
    const out = r.stdout;
    expect(r.code, `${out}\n${r.stderr}`).toBe(0);
    expect(out).toContain(`Claude Code ${PINNED}, a version nerdr's own suite proved`);
    for (const [phase, state] of <[string, string][]>[
      ['idle at startup', 'idle'],
      ['working while the model answers', 'working'],
      ['done at the end of the turn', 'done'],
      ['blocked at a permission prompt', 'blocked'],
      ['working after approval', 'working'],
      ['done after the approved command', 'done'],
      ['blocked at the permission prompt again', 'blocked'],
      ['idle after the prompt is denied with Esc', 'idle'],
    ]) {
      expect(out).toMatch(new RegExp(`^${phase.replace(/[()]/g, '\\$&')}\\s+${state}\\s+${state}\\s+ok$`, 'm'));
    }
    expect(out).toContain('claude: every light was right');
    // progress went to stderr while it ran
    expect(r.stderr).toMatch(/starting claude in a private tmux server \(-L nerdr-selftest-[0-9a-f]+\), model at http:\/\/127\.0\.0\.1:\d+/);
    const screens = /^screens: (.+)$/m.exec(out)?.[1];
    expect(screens).toBeDefined();
    expect(screens!.startsWith(path.join(home, 'state', 'selftest', `claude@${PINNED}-`))).toBe(true);
    const result = JSON.parse(readFileSync(path.join(screens!, 'result.json'), 'utf8')) as { ok: boolean; version: string; phases: { outcome: string }[] };
    expect(result.ok).toBe(true);
    expect(result.version).toBe(PINNED);
    expect(result.phases.map((p) => p.outcome)).toEqual(Array(8).fill('right'));
    expect(readFileSync(path.join(screens!, 'permission.txt'), 'utf8')).toMatch(/Do you want to proceed\?/);
    // the user's HOME was not touched: the agent ran in a scratch one
    expect(existsSync(path.join(home, '.claude.json'))).toBe(false);
    expect(existsSync(path.join(home, '.claude'))).toBe(false);
    const id = /-L nerdr-selftest-([0-9a-f]+)\)/.exec(r.stderr)?.[1];
    expect(id).toBeTruthy();
    expect(selftestLeftovers(id!)).toEqual([]);
  }, 320_000);
});
