// A fake `claude` started with `nerdr new claude -d`, so it runs with the launch's real wiring:
// its window, the hook command nerdr handed Claude in its settings file, and the hook
// environment of its pane (what a hook run by Claude would have).

import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { paneEnv, type LiveEnv } from './env.js';

export interface WiredClaude {
  name: string;
  win: string;
  /** The window's hook environment (from its pane process). */
  env: Record<string, string>;
  /** The command the launch wired for Claude's hooks. */
  command: string;
}

export async function startWiredClaude(env: LiveEnv, name: string): Promise<WiredClaude> {
  const r = await env.nerdrWith(['new', 'claude', '-d', '--name', name], { timeoutMs: 60_000 });
  expect(r.code, r.stderr).toBe(0);
  const win = r.stdout.trim();
  const pe = await paneEnv(env, win);
  const argv = JSON.parse((await env.tmuxOk('show-options', '-wqv', '-t', win, '@nerdr_argv')).trim()) as string[];
  const settings = JSON.parse(readFileSync(argv[argv.indexOf('--settings') + 1]!, 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  const command = settings.hooks.Stop![0]!.hooks[0]!.command;
  const hookEnv = Object.fromEntries(['NERDR_TAB', 'NERDR_SOCKET', 'HERDR_PANE_ID', 'TMUX_PANE', 'NERDR_BIN'].filter((k) => pe[k] !== undefined).map((k) => [k, pe[k]!]));
  return { name, win, env: hookEnv, command };
}
