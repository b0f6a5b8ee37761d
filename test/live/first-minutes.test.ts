// What a new user meets in the first ten minutes: errors that name the fix, nothing lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveEnv, tmuxAvailable, type LiveEnv } from './helpers/env.js';

describe.skipIf(!tmuxAvailable)('the first ten minutes', () => {
  let env: LiveEnv;
  beforeAll(async () => {
    env = await startLiveEnv();
    await env.tmuxOk('new-session', '-d', '-s', 'side');
  });
  afterAll(async () => {
    await env?.cleanup();
  });

  const windowsOf = async (session: string): Promise<string[]> =>
    (await env.tmuxOk('list-windows', '-t', `=${session}`, '-F', '#{window_name}')).split('\n').filter(Boolean);

  it('new --cmd and term with -t <missing session> fail, naming the sessions there are; no window is left behind', async () => {
    const before = await env.tmux('list-windows', '-a', '-F', '#{window_id}');
    for (const args of [['new', '-d', '-t', 'nosuch', '--cmd', 'sleep 100'], ['term', '-d', '-t', 'nosuch', 'sleep', '100'], ['new', '-d', '-t', '_nerdr', '--cmd', 'sleep 100']]) {
      const r = await env.nerdr(...args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(/no tmux session "(nosuch|_nerdr)"/);
      expect(r.stderr).toMatch(/name one of: (user, side|side, user)/);
      expect(r.stdout).toBe('');
    }
    // nothing was created anywhere (not even in the hidden _nerdr session)
    const after = await env.tmux('list-windows', '-a', '-F', '#{window_id}');
    const created = after.stdout.split('\n').filter((w) => w && !before.stdout.split('\n').includes(w));
    // the supervisor's own _nerdr placeholder may have appeared; no agent window did
    for (const w of created) expect((await env.tmuxOk('display', '-p', '-t', w, '#{window_name}')).trim()).toBe('_home');
    expect(await windowsOf('user')).toHaveLength(1);
  });
});
