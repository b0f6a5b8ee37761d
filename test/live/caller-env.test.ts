// The window's program gets the environment of the shell that ran `nerdr new` (an exported
// variable, the project's PATH), never that shell's TMUX_PANE; nerdr's own variables are the window's.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processEnv, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';

describe.skipIf(!tmuxAvailable)("the caller's environment", () => {
  let env: LiveEnv;
  let extra: string;
  beforeAll(async () => {
    env = await startLiveEnv();
    extra = mkdtempSync(path.join(os.tmpdir(), 'nerdr-path-'));
  });
  afterAll(async () => {
    await env?.cleanup();
    rmSync(extra, { recursive: true, force: true });
  });

  const panePid = async (win: string) => (await env.tmuxOk('display', '-p', '-t', win, '#{pane_pid}')).trim();

  for (const kind of ['new', 'term'] as const) {
    it(`${kind}: a variable and a PATH entry exported only in the caller arrive; the caller's TMUX_PANE and nerdr variables do not`, async () => {
      const callerEnv = {
        ONLY_IN_CALLER: `yes ${kind}`,
        PATH: `${extra}:${env.env.PATH ?? '/usr/bin:/bin'}`,
        TMUX_PANE: '%999',
        NERDR_TAB: 'not-this-one',
        CLAUDECODE: '1',
      };
      const args = kind === 'new' ? ['new', '-d', '--name', `env-${kind}`, '--cmd', 'exec sleep 100'] : ['term', '-d', '--name', `env-${kind}`, 'sleep', '100'];
      const r = await env.nerdrWith(args, { env: callerEnv });
      expect(r.code, r.stderr).toBe(0);
      const win = r.stdout.trim();
      const pe = await waitFor(async () => {
        const e = processEnv(await panePid(win));
        return e.ONLY_IN_CALLER ? e : undefined;
      }, { what: `the ${kind} window's environment` });
      expect(pe.ONLY_IN_CALLER).toBe(`yes ${kind}`);
      expect(pe.PATH!.split(':')[0]).toBe(extra);
      expect(pe.TMUX_PANE).not.toBe('%999');
      expect(pe.CLAUDECODE).toBeUndefined();
      expect(pe.NERDR_TAB).not.toBe('not-this-one');
      if (kind === 'new') expect(pe.NERDR_TAB).toMatch(/^[A-Za-z0-9_]/);
      else expect(pe.NERDR_TAB).toBeUndefined();
    });
  }
});
