import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { register, resolveSocketPath } from '../../../src/cli/pane.js';
import { SECRET, startServer, type Harness } from './helpers.js';

let h: Harness;
let stderr: string;
const savedEnv = { ...process.env };

class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

beforeEach(async () => {
  h = await startServer();
  stderr = '';
  process.env.HERDR_SOCKET_PATH = h.path;
  delete process.env.HERDR_PANE_ID;
  delete process.env.NERDR_TAB;
  delete process.env.NERDR_SOCKET;
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
    stderr += String(s);
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

/** Runs `nerdr <args>`; returns the exit code herdr's callers would see. */
async function nerdr(...args: string[]): Promise<number> {
  const program = new Command('nerdr');
  program.configureOutput({ writeErr: (s) => void (stderr += s), writeOut: (s) => void (stderr += s) });
  register(program);
  try {
    await program.parseAsync(['node', 'nerdr', ...args]);
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
    expect(h.reports).toEqual([expect.objectContaining({ kind: 'report_agent', source: 'custom:x', agent: 'bot', state: 'working', message: '-looks like a flag', seq: 1700000000000000001n })]);
  });

  it('accepts flags in any order after the pane id', async () => {
    expect(await nerdr('pane', 'report-agent', SECRET, '--state', 'idle', '--agent', 'bot', '--source', ' s ')).toBe(0);
    expect(h.reports[0]).toMatchObject({ source: 's', state: 'idle' });
  });

  it('takes the pane id from HERDR_PANE_ID or NERDR_TAB when omitted', async () => {
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
    ['empty --source', ['--state', 'idle', '--source', '  ']],
  ])('exits 1 on %s', async (_n, extra) => {
    const args = ['pane', 'report-agent', SECRET, '--source', 's', '--agent', 'bot', ...extra];
    expect(await nerdr(...args)).toBe(1);
    expect(stderr).toMatch(/error/);
    expect(h.reports).toHaveLength(0);
  });

  it.each([
    ['missing --state', ['--source', 's', '--agent', 'bot']],
    ['missing --source', ['--agent', 'bot', '--state', 'idle']],
    ['missing value', ['--source', 's', '--agent', 'bot', '--state']],
    ['unknown option', ['--source', 's', '--agent', 'bot', '--state', 'idle', '--bogus', 'x']],
    ['--flag=value', ['--source=s', '--agent', 'bot', '--state', 'idle']],
  ])('exits 2 on usage error: %s', async (_n, extra) => {
    expect(await nerdr('pane', 'report-agent', SECRET, ...extra)).toBe(2);
    expect(stderr).not.toBe('');
    expect(h.reports).toHaveLength(0);
  });

  it('exits 2 when no pane id is given or known', async () => {
    expect(await nerdr('pane', 'release-agent', '--source', 's', '--agent', 'bot')).toBe(2);
  });

  it('exits 1 with a JSON server_not_running error when nothing listens', async () => {
    process.env.HERDR_SOCKET_PATH = h.path + '.gone';
    expect(await nerdr('pane', 'release-agent', SECRET, '--source', 's', '--agent', 'bot')).toBe(1);
    expect(JSON.parse(stderr)).toMatchObject({ error: { code: 'server_not_running' } });
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

describe('resolveSocketPath', () => {
  it('prefers HERDR_SOCKET_PATH, then NERDR_SOCKET, then the state folder', () => {
    expect(resolveSocketPath({ HERDR_SOCKET_PATH: '/a', NERDR_SOCKET: '/b' })).toBe('/a');
    expect(resolveSocketPath({ NERDR_SOCKET: '/b' })).toBe('/b');
    expect(resolveSocketPath({ NERDR_STATE_DIR: '/s' })).toBe('/s/nerdr.sock');
    expect(resolveSocketPath({ XDG_STATE_HOME: '/x' })).toBe('/x/nerdr/nerdr.sock');
  });
});
