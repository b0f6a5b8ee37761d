// `nerdr pane …` through the real program (main(), as bin/nerdr.js runs it), so the exit codes
// are the ones herdr's scripts and users get.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { paneParams, resolveSocketPath } from '../../../src/cli/pane.js';
import { serverFiles } from '../../../src/paths.js';
import { SECRET, WINDOW, startServer, type Harness } from './helpers.js';

let h: Harness;
let stderr: string;
let stdout: string;
const savedEnv = { ...process.env };

class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** A secret that starts with `-` (1 window in 64 got one before secrets were drawn without). */
const DASH_SECRET = '-Vabc_dash-secret-0123456789abcd';

beforeEach(async () => {
  h = await startServer({ authenticate: (s) => (s === SECRET || s === DASH_SECRET ? WINDOW : null) });
  stderr = '';
  stdout = '';
  process.env.HERDR_SOCKET_PATH = h.path;
  delete process.env.HERDR_PANE_ID;
  delete process.env.NERDR_TAB;
  delete process.env.NERDR_SOCKET;
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
    stderr += String(s);
    return true;
  });
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
    stdout += String(s);
    return true;
  });
  vi.spyOn(process, 'exit').mockImplementation(((code?: number) => {
    throw new Exit(code ?? 0);
  }) as never);
});
afterEach(async () => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
  process.env = { ...savedEnv };
  await h.cleanup();
});

/** Runs `nerdr <args>` as bin/nerdr.js does; returns the exit code herdr's callers would see. */
async function nerdr(...args: string[]): Promise<number> {
  process.exitCode = undefined;
  try {
    await main(['node', 'nerdr', ...args]);
  } catch (e) {
    if (e instanceof Exit) return e.code;
    throw e;
  }
  return Number(process.exitCode ?? 0);
}

describe('nerdr pane report-agent', () => {
  it('reports and prints nothing, exit 0', async () => {
    const code = await nerdr('pane', 'report-agent', SECRET, '--source', 'custom:x', '--agent', 'bot', '--state', 'working', '--message', '-looks like a flag', '--seq', '1700000000000000001');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toBe('');
    expect(h.reports).toEqual([expect.objectContaining({ kind: 'report_agent', source: 'custom:x', agent: 'bot', state: 'working', message: '-looks like a flag', seq: 1700000000000000001n })]);
  });

  it('accepts flags in any order after the pane id', async () => {
    expect(await nerdr('pane', 'report-agent', SECRET, '--state', 'idle', '--agent', 'bot', '--source', ' s ')).toBe(0);
    expect(h.reports[0]).toMatchObject({ source: 's', state: 'idle' });
  });

  it('takes the pane id from HERDR_PANE_ID or NERDR_TAB when the first argument is an option', async () => {
    process.env.NERDR_TAB = SECRET;
    expect(await nerdr('pane', 'release-agent', '--source', 's', '--agent', 'bot')).toBe(0);
    expect(h.reports[0]?.kind).toBe('release_agent');
  });

  it('prints the JSON error reply on stderr and exits 1 on a server error', async () => {
    const code = await nerdr('pane', 'report-agent', 'wrong', '--source', 's', '--agent', 'bot', '--state', 'idle');
    expect(code).toBe(1);
    expect(JSON.parse(stderr)).toMatchObject({ id: 'cli:request', error: { code: 'pane_not_found' } });
  });

  it.each([
    ['invalid --state', ['--state', 'done']],
    ['invalid --seq', ['--state', 'idle', '--seq', '-1']],
    ['--seq beyond u64', ['--state', 'idle', '--seq', '18446744073709551616']],
  ])('exits 1 on %s (herdr: a plain error)', async (_n, extra) => {
    const args = ['pane', 'report-agent', SECRET, '--source', 's', '--agent', 'bot', ...extra];
    expect(await nerdr(...args)).toBe(1);
    expect(stderr).toMatch(/invalid/);
    expect(h.reports).toHaveLength(0);
  });

  it.each([
    ['missing --state', ['--source', 's', '--agent', 'bot']],
    ['missing --source', ['--agent', 'bot', '--state', 'idle']],
    ['empty --source', ['--source', '  ', '--agent', 'bot', '--state', 'idle']],
    ['missing --agent', ['--source', 's', '--state', 'idle']],
    ['missing value', ['--source', 's', '--agent', 'bot', '--state']],
    ['unknown option', ['--source', 's', '--agent', 'bot', '--state', 'idle', '--bogus', 'x']],
    ['--flag=value', ['--source=s', '--agent', 'bot', '--state', 'idle']],
    ['a second positional', ['--source', 's', '--agent', 'bot', '--state', 'idle', 'extra']],
  ])('exits 2 on usage error: %s', async (_n, extra) => {
    expect(await nerdr('pane', 'report-agent', SECRET, ...extra)).toBe(2);
    expect(stderr).not.toBe('');
    expect(h.reports).toHaveLength(0);
  });

  it('exits 2 when no pane id is given or known', async () => {
    expect(await nerdr('pane', 'release-agent', '--source', 's', '--agent', 'bot')).toBe(2);
    expect(await nerdr('pane', 'release-agent')).toBe(2);
    expect(stderr).toMatch(/usage: nerdr pane release-agent <pane_id>/);
  });

  it('exits 2 on an unknown pane subcommand, 0 on help', async () => {
    expect(await nerdr('pane', 'frobnicate', SECRET)).toBe(2);
    expect(await nerdr('pane', 'help')).toBe(0);
    expect(stdout).toMatch(/report-metadata/);
  });

  it('exits 1 with a JSON server_not_running error when nothing listens', async () => {
    process.env.HERDR_SOCKET_PATH = h.path + '.gone';
    expect(await nerdr('pane', 'release-agent', SECRET, '--source', 's', '--agent', 'bot')).toBe(1);
    expect(JSON.parse(stderr)).toMatchObject({ error: { code: 'server_not_running' } });
  });
});

describe('the pane id is the first argument, whatever it starts with (herdr)', () => {
  it('a secret like -Vabc… is the pane id, not nerdr\'s -V (version)', async () => {
    const code = await nerdr('pane', 'report-agent-session', DASH_SECRET, '--source', 'herdr:qodercli', '--agent', 'qodercli', '--agent-session-id', 'q-1', '--seq', '1764489600000000001');
    expect(stdout).toBe('');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(h.reports).toEqual([expect.objectContaining({ kind: 'report_agent_session', source: 'herdr:qodercli', agentSessionId: 'q-1' })]);
  });

  it.each(['-Lsock-secret', '--not-an-option', '-h0secret'])('%s as the first argument is the pane id', (id) => {
    expect(paneParams('report-agent', [id, '--source', 's', '--agent', 'a', '--state', 'idle'], {})).toMatchObject({ pane_id: id });
  });

  it('a value is taken as it is, even when it starts with -', () => {
    expect(paneParams('report-agent-session', [SECRET, '--source', 's', '--agent', 'a', '--agent-session-id', '--source'], {})).toMatchObject({ source: 's', agent_session_id: '--source' });
  });
});

describe("herdr's global --session NAME", () => {
  it('is accepted before the command and among the flags (and does not change the socket)', async () => {
    expect(await nerdr('--session', 'work', 'pane', 'report-agent', SECRET, '--source', 's', '--agent', 'bot', '--state', 'idle')).toBe(0);
    expect(await nerdr('pane', 'report-agent', SECRET, '--session', 'work', '--source', 's', '--agent', 'bot', '--state', 'working')).toBe(0);
    expect(await nerdr('--session=work', 'pane', 'release-agent', SECRET, '--source', 's', '--agent', 'bot')).toBe(0);
    expect(h.reports.map((r) => r.kind)).toEqual(['report_agent', 'report_agent', 'release_agent']);
    expect(stderr).toBe('');
  });

  it('an invalid name or a missing value is a usage error', async () => {
    expect(await nerdr('--session', '..', 'pane', 'release-agent', SECRET, '--source', 's', '--agent', 'bot')).toBe(2);
    expect(await nerdr('pane', 'release-agent', SECRET, '--source', 's', '--agent', 'bot', '--session')).toBe(2);
    expect(h.reports).toHaveLength(0);
  });
});

describe('nerdr pane report-agent-session', () => {
  it('sends session fields', async () => {
    const code = await nerdr('pane', 'report-agent-session', SECRET, '--source', 'herdr:qwen', '--agent', 'qwen', '--agent-session-id', 'abc', '--session-start-source', 'resume', '--seq', '3');
    expect(code).toBe(0);
    expect(h.reports[0]).toMatchObject({ kind: 'report_agent_session', agentSessionId: 'abc', sessionStartSource: 'resume', seq: 3n });
  });

  it('does not accept --state', async () => {
    expect(await nerdr('pane', 'report-agent-session', SECRET, '--source', 's', '--agent', 'a', '--state', 'idle')).toBe(2);
  });
});

describe('nerdr pane report-metadata', () => {
  it('sends every field herdr has; exit 0', async () => {
    const code = await nerdr(
      'pane', 'report-metadata', SECRET, '--source', 'custom:ci', '--agent', 'mybot', '--applies-to-source', 'custom:ci',
      '--title', 'Fix the login bug', '--display-agent', 'My Bot', '--state-label', 'working=Reviewing', '--state-label', 'Blocked=Needs a key',
      '--token', 'branch=main', '--clear-token', 'old', '--seq', '7', '--ttl-ms', '60000',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(h.reports).toHaveLength(1);
    expect(h.reports[0]).toMatchObject({
      kind: 'report_metadata',
      source: 'custom:ci',
      seq: 7n,
      metadata: {
        agent: 'mybot',
        appliesToSource: 'custom:ci',
        title: 'Fix the login bug',
        displayAgent: 'My Bot',
        stateLabels: { working: 'Reviewing', blocked: 'Needs a key' },
        tokens: { branch: 'main', old: null },
        ttlMs: 60000,
      },
    });
  });

  it('clears', async () => {
    expect(await nerdr('pane', 'report-metadata', SECRET, '--source', 's', '--clear-title', '--clear-display-agent', '--clear-state-labels')).toBe(0);
    expect(h.reports[0]).toMatchObject({ kind: 'report_metadata', metadata: { clearTitle: true, clearDisplayAgent: true, clearStateLabels: true } });
  });

  it.each([
    ['nothing to set or clear', ['--source', 's']],
    ['set and clear the title', ['--source', 's', '--title', 't', '--clear-title']],
    ['a state label without =', ['--source', 's', '--state-label', 'working']],
    ['an unknown state label', ['--source', 's', '--state-label', 'busy=x']],
    ['a token without =', ['--source', 's', '--token', 'x']],
    ['a blank --applies-to-source', ['--source', 's', '--title', 't', '--applies-to-source', ' ']],
    ['missing --source', ['--title', 't']],
  ])('exits 2 on %s', async (_n, extra) => {
    expect(await nerdr('pane', 'report-metadata', SECRET, ...extra)).toBe(2);
    expect(h.reports).toHaveLength(0);
  });

  it('exits 1 on a --ttl-ms that is not a number; a server refusal is the JSON reply', async () => {
    expect(await nerdr('pane', 'report-metadata', SECRET, '--source', 's', '--title', 't', '--ttl-ms', 'soon')).toBe(1);
    stderr = '';
    expect(await nerdr('pane', 'report-metadata', SECRET, '--source', 's', '--title', 't', '--ttl-ms', '0')).toBe(1);
    expect(JSON.parse(stderr)).toMatchObject({ error: { code: 'invalid_metadata_ttl' } });
  });
});

describe('resolveSocketPath', () => {
  it("prefers HERDR_SOCKET_PATH, then NERDR_SOCKET, then the supervisor's socket of the caller's tmux server", () => {
    expect(resolveSocketPath({ HERDR_SOCKET_PATH: '/a', NERDR_SOCKET: '/b' })).toBe('/a');
    expect(resolveSocketPath({ NERDR_SOCKET: '/b' })).toBe('/b');
    const env = { NERDR_STATE_DIR: '/s', TMUX: '/tmp/tmux-0/work,123,0' };
    // the socket the supervisor of that server listens on, as every other command finds it
    expect(resolveSocketPath(env)).toBe(serverFiles('/tmp/tmux-0/work', env).socket);
    expect(resolveSocketPath(env)).toMatch(/^\/s\/nerdr-.+\.sock$/);
  });

  it('outside tmux with neither variable: an error that says how to fix it, not a socket nobody serves', () => {
    expect(() => resolveSocketPath({ NERDR_STATE_DIR: '/s' })).toThrow(/not inside tmux/);
  });
});
