// The CLI's top level (src/cli/main.ts): what reaches it is printed once, as message and fix, and
// ends with the code's exit status; never a stack unless NERDR_DEBUG=1.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/main.js';

let stderr: string;
let saved: typeof process.exitCode;

beforeEach(() => {
  stderr = '';
  saved = process.exitCode;
  process.exitCode = undefined;
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
});

afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = saved;
});

async function run(...args: string[]): Promise<number> {
  await main(['node', 'nerdr', ...args]);
  const code = process.exitCode;
  process.exitCode = undefined;
  return typeof code === 'number' ? code : 0;
}

describe('the top-level handler', () => {
  it('a coded error: message, fix, its exit status (1)', async () => {
    expect(await run('read', 'x', '--lines', 'many')).toBe(1);
    expect(stderr).toBe('nerdr: --lines takes a positive whole number, not "many"\n  fix: e.g. --lines 20\n');
  });

  it('a usage error of the selftest: exit 2 from its code, with its fix', async () => {
    expect(await run('selftest')).toBe(2);
    expect(stderr).toBe('nerdr: name the agent to test\n  fix: nerdr selftest claude (or --all for every installed one)\n');
  });

  it("herdr's pane grammar keeps herdr's statuses: 2 for usage", async () => {
    expect(await run('pane', 'report-agent')).toBe(2);
  });

  it('an unexpected error: one line and the way to the stack, exit 1; the stack with NERDR_DEBUG=1', async () => {
    const { Command } = await import('commander');
    vi.spyOn(Command.prototype, 'parseAsync').mockRejectedValue(new TypeError("Cannot read properties of undefined (reading 'pid')"));
    expect(await run('ls')).toBe(1);
    expect(stderr).toMatch(/^nerdr: internal error: Cannot read properties of undefined \(reading 'pid'\)\n {2}fix: this is a bug in nerdr: run it again with NERDR_DEBUG=1 for the stack, and report it\n$/);
    stderr = '';
    vi.stubEnv('NERDR_DEBUG', '1');
    try {
      expect(await run('ls')).toBe(1);
      expect(stderr).toMatch(/\nTypeError: Cannot read properties .*\n\s+at /);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('--version', () => {
  it('prints the version without loading any command (it loaded them all: 0.5 s)', async () => {
    const { buildProgram } = await import('../../../src/cli/main.js');
    for (const args of [['--version'], ['-V'], ['-L', 'x', '--version']]) expect((await buildProgram(args)).commands).toEqual([]);
    // help still lists every command
    expect((await buildProgram(['--help'])).commands.length).toBeGreaterThan(20);
    let out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    });
    expect(await run('--version')).toBe(0);
    expect(out).toMatch(/^\d+\.\d+\.\d+/);
  });
});
