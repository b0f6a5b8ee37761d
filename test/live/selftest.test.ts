// `nerdr selftest` through the real CLI where it cannot drive anything: what it says, with exit 2.
// These need no agent at all; the run of the real Claude Code is in `npm run test:agents`
// (test/agents/selftest.conformance.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, NERDR_BIN, run, tmuxAvailable } from './helpers/env.js';

describe.skipIf(!tmuxAvailable)('nerdr selftest', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    assertBuilt();
    home = mkdtempSync(path.join(os.tmpdir(), 'nerdr-live-selftest-'));
    env = { ...process.env, HOME: home, NERDR_STATE_DIR: path.join(home, 'state'), NERDR_CONFIG_DIR: path.join(home, 'config') };
    for (const k of Object.keys(env)) if (k === 'TMUX' || k === 'TMUX_PANE' || k.startsWith('XDG_')) delete env[k];
  });

  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
  });

  it('says plainly what cannot be driven, with exit 2', async () => {
    const bare = { ...env, PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` };
    const cursor = await run(process.execPath, [NERDR_BIN, 'selftest', 'cursor'], { env: bare });
    expect(cursor.code).toBe(2);
    expect(cursor.stderr).toMatch(/cannot selftest cursor: .*login/);
    const missing = await run(process.execPath, [NERDR_BIN, 'selftest', 'codex'], { env: bare });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('OpenAI Codex CLI is not installed (no `codex` on PATH); install it: npm install -g @openai/codex');
    const unknown = await run(process.execPath, [NERDR_BIN, 'selftest', 'nosuch'], { env: bare });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/does not know an agent called "nosuch" \(known: claude, codex/);
    const all = await run(process.execPath, [NERDR_BIN, 'selftest', '--all'], { env: bare });
    expect(all.code).toBe(2);
    expect(all.stderr).toMatch(/no agent nerdr can drive is installed:\n {2}claude: Claude Code is not installed/);
    const none = await run(process.execPath, [NERDR_BIN, 'selftest'], { env: bare });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('fix: nerdr selftest claude (or --all for every installed one)');
  });
});
