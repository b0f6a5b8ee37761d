// nerdr's tmux clients read tmux the same in any locale (issue 24): tmux takes a client without
// a UTF-8 LC_ALL / LC_CTYPE / LANG for a non-UTF-8 terminal and prints every tab, control
// character and non-ASCII character to it as `_`, unless it is started with -u (CLIENT_FLAGS).
// This process runs without any locale variable here, as under cron or systemd.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient, replyText } from '../../../src/tmux/client.js';
import { command } from '../../../src/tmux/quote.js';
import { tmux, tmuxArgv } from '../../../src/tmux/server.js';
import { startServer, tmuxAvailable, type PrivateServer } from './helpers.js';

const LOCALE = ['LC_ALL', 'LC_CTYPE', 'LANG', 'TMUX', 'TMUX_PANE'];
/** A tab between fields, a non-ASCII letter, an escape: what tmux sanitizes for a non-UTF-8 client. */
const TEXT = 'a\tcafé\x1b[1m';

describe.skipIf(!tmuxAvailable)('tmux clients without a locale', () => {
  let srv: PrivateServer;
  const saved: Record<string, string | undefined> = {};
  const clients: ControlClient[] = [];

  beforeAll(async () => {
    srv = await startServer();
    // children inherit this process's environment (TMUX would make tmux assume UTF-8 too)
    for (const k of LOCALE) {
      saved[k] = process.env[k];
      delete process.env[k];
    }
  });

  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
    for (const c of clients) await c.close().catch(() => undefined);
    await srv?.stop();
  });

  it('every argv starts with -u', () => {
    expect(tmuxArgv(['-N', '-S', '/s'], ['list-panes'])).toEqual(['-u', '-N', '-S', '/s', 'list-panes']);
  });

  it('a one-shot command gets tabs, non-ASCII and escapes as they are', async () => {
    const r = await tmux(srv.socketPath, ['display', '-p', TEXT]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${TEXT}\n`);
  });

  it('the control client does too', async () => {
    const c = new ControlClient(srv.socketPath, 'user');
    clients.push(c);
    const [reply] = await c.send([command('display', '-p', TEXT)]);
    expect(reply!.ok).toBe(true);
    expect(replyText(reply!)).toBe(TEXT);
  });
});
