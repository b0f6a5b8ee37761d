// The lights' two looks (src/tmux/supervised.ts): tmux itself picks the live one while a control
// client is attached to _nerdr and the offline one otherwise. The branches are checked on a real
// private server against the plain formats they stand for, with glyphs and colours that hold what
// would break a conditional (`,`, `}`, `#`) and the fleet's nested format.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatBranch, whenAttached } from '../../../src/tmux/supervised.js';
import { SUPERVISED, lightText, offlineGlyphsFrom, glyphsFrom } from '../../../src/supervisor/lights.js';
import { looksFromOptions, offlineLookFrom } from '../../../src/looks.js';
import { startServer, testEnv, tmuxAvailable, waitFor, type PrivateServer } from './helpers.js';

describe('formatBranch', () => {
  it('escapes the commas and braces that would end a branch, and nothing else', () => {
    expect(formatBranch('#[none,bg=black,fg=red,bold]●')).toBe('#[none#,bg=black#,fg=red#,bold]●');
    expect(formatBranch('a}b')).toBe('a#}b');
    // escapes already there, nested formats and a lone # stay as they are
    expect(formatBranch('##,#,#}#{?x,a,b}#{E:@nerdr_fleet}#[fg=#ff5f00]#')).toBe('###,#,#}#{?x,a,b}#{E:@nerdr_fleet}#[fg=#ff5f00]#');
  });
});

describe.skipIf(!tmuxAvailable)('the offline look on a real server', () => {
  let srv: PrivateServer;
  const clients: ChildProcess[] = [];
  const expand = async (format: string): Promise<string> => (await srv.tmux('display', '-p', '-t', 'user', format)).replace(/\n$/, '');
  /** A control client attached to a session, as the supervisor's is; it leaves when its stdin ends. */
  const attachControl = (session: string): ChildProcess => {
    const c = spawn('tmux', ['-L', srv.name, '-f', '/dev/null', '-C', 'attach', '-t', `=${session}`], { env: testEnv, stdio: ['pipe', 'ignore', 'ignore'] });
    clients.push(c);
    return c;
  };
  const attached = async (session: string): Promise<boolean> =>
    (await srv.tmux('list-clients', '-F', '#{session_name}')).split('\n').includes(session);
  /**
   * Ends a control client and waits for its process to exit. tmux 3.3a segfaults (a NULL read at
   * 0x20) when a control client attaches while another one is still exiting: a loop of this
   * file's steps crashed it within 300 rounds three times out of three, and not in 4 × 300 rounds
   * once each client had exited before the next attached (and one CI run lost its server so).
   */
  const detach = async (c: ChildProcess): Promise<void> => {
    const exited = c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => c.once('exit', () => r()));
    c.stdin!.end();
    await exited;
  };

  beforeAll(async () => {
    srv = await startServer();
    await srv.tmux('new-session', '-d', '-s', '_nerdr', '/bin/sh');
    await srv.tmux('new-session', '-d', '-s', 'x_nerdr_y', '/bin/sh');
  });
  afterAll(async () => {
    for (const c of clients) c.kill('SIGKILL');
    await srv?.stop();
  });

  it('shows the live light while a control client is on _nerdr, the offline one before and after', async () => {
    const looks = looksFromOptions({ '@nerdr-glyph-blocked': ',}#', '@nerdr-color-blocked': '#ff5f00,bold' });
    const offline = offlineLookFrom({});
    const light = lightText({ state: 'blocked', kind: 'blocked', suffix: ' ✉1' }, glyphsFrom(looks), offlineGlyphsFrom(looks, offline));
    await srv.tmux('set-option', '-g', '@light', light);
    await srv.tmux('set-option', '-g', '@live', glyphsFrom(looks).blocked + ' ✉1');
    await srv.tmux('set-option', '-g', '@offline', offlineGlyphsFrom(looks, offline).blocked + ' ✉1');
    const live = await expand('#{E:@live}');
    const dim = await expand('#{E:@offline}');
    expect(live).toContain(',}#');
    expect(await expand('#{E:@light}')).toBe(dim);
    // a client on a session whose name only holds _nerdr is not nerdr's
    const other = attachControl('x_nerdr_y');
    await waitFor('the control client on x_nerdr_y', () => attached('x_nerdr_y'));
    expect(await expand(SUPERVISED)).toBe('0');
    expect(await expand('#{E:@light}')).toBe(dim);
    await detach(other);
    const ours = attachControl('_nerdr');
    await waitFor('the control client on _nerdr', () => attached('_nerdr'));
    expect(await expand(SUPERVISED)).toBe('1');
    expect(await expand('#{E:@light}')).toBe(live);
    await detach(ours);
    await waitFor('the control client gone', async () => !(await attached('_nerdr')));
    expect(await expand('#{E:@light}')).toBe(dim);
  });

  it('a summary keeps the fleet format nested in its live branch', async () => {
    await srv.tmux('set-option', '-g', '@nerdr_fleet', 'hostA ○1');
    await srv.tmux('set-option', '-g', '@summary', whenAttached(SUPERVISED, 'a,b}#{E:@nerdr_fleet}', 'nerdr ✗'));
    expect(await expand('#{E:@summary}')).toBe('nerdr ✗');
    const ours = attachControl('_nerdr');
    await waitFor('the control client on _nerdr', () => attached('_nerdr'));
    expect(await expand('#{E:@summary}')).toBe('a,b}hostA ○1');
    await detach(ours);
    await waitFor('the control client gone', async () => !(await attached('_nerdr')));
  });
});
