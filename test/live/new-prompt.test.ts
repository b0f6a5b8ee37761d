// `nerdr new AGENT --prompt TEXT`: the agent starts with work, its first message typed in once it
// first waits at its prompt (a queued message like any `nerdr send`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';

describe.skipIf(!tmuxAvailable)('nerdr new --prompt', () => {
  let env: LiveEnv;
  beforeAll(async () => {
    env = await startLiveEnv({ cols: 120, rows: 30 });
  });
  afterAll(async () => {
    await env?.cleanup();
  });
  const screen = (win: string) => env.tmuxOk('capture-pane', '-p', '-t', win);

  it('types the first message once the agent waits, and its receipt follows it', async () => {
    const r = await env.nerdr('new', 'demo', '-d', '--name', 'starter', '--prompt', 'refactor the parser', '--json', '--', '--auto', '0', '--work', '1');
    expect(r.code, r.stderr).toBe(0);
    const made = JSON.parse(r.stdout) as { window: string; prompt: { id: string; position: number } };
    expect(made.prompt.position).toBe(1);
    await waitFor(async () => (await screen(made.window)).includes('> refactor the parser'), { what: 'the first message typed in', timeoutMs: 20_000 });
    await waitFor(async () => (await env.nerdr('send', '--status', made.prompt.id)).stdout.includes('turn'), { what: 'its receipt to follow the turn', timeoutMs: 20_000 });
  });

  it('--prompt - reads stdin; a prompt that cannot be typed makes no window', async () => {
    const r = await env.nerdrWith(['new', 'demo', '-d', '--name', 'piped', '--prompt', '-', '--', '--auto', '0', '--work', '1'], { input: 'from a pipe\n' });
    expect(r.code, r.stderr).toBe(0);
    await waitFor(async () => (await screen(r.stdout.trim())).includes('> from a pipe'), { what: 'the piped message typed in', timeoutMs: 20_000 });
    const before = (await env.lsJson()).length;
    const bad = await env.nerdrWith(['new', 'demo', '-d', '--name', 'never', '--prompt', '-'], { input: 'a\0b' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('NUL');
    expect((await env.lsJson()).length).toBe(before);
    expect((await env.tmuxOk('list-windows', '-a', '-F', '#{window_name}')).split('\n')).not.toContain('never');
  });
});
