import { describe, expect, it } from 'vitest';
import { socketError } from '../../../src/cli/context.js';
import { CODES, exitFor, fixFor, NerdrError, TmuxCommandError, fromServerError, report } from '../../../src/errors.js';
import { SocketRequestError } from '../../../src/supervisor/socket/client.js';
import { asRpcError, RpcError, SocketSetupError } from '../../../src/supervisor/socket/errors.js';
import { SEND_EXIT } from '../../../src/cli/receipts.js';
import { NO_SERVER_EXIT, NO_SUPERVISOR_EXIT } from '../../../src/fleet/ssh.js';

const reply = (code: string, message: string, fix?: string) =>
  new SocketRequestError(code, message, { id: 'x', error: { code, message, ...(fix ? { fix } : {}) } }, fix);

describe('exit statuses come from error codes, never from message text', () => {
  it('maps the wait codes, and anything else to 1', () => {
    expect(new NerdrError('x', undefined, { code: 'agent_exited' }).exitCode).toBe(3);
    expect(new NerdrError('x', undefined, { code: 'agent_replaced' }).exitCode).toBe(3);
    expect(new NerdrError('x', undefined, { code: 'agent_gone' }).exitCode).toBe(3);
    expect(new NerdrError('x', undefined, { code: 'timeout' }).exitCode).toBe(124);
    expect(new NerdrError('x', undefined, { code: 'unknown_target' }).exitCode).toBe(1);
    expect(new NerdrError('x').exitCode).toBe(1);
    expect(new NerdrError('x').code).toBe('failed');
    // another program's status, passed on (ssh, tmux attach)
    expect(new NerdrError('x', undefined, { code: 'timeout', exitCode: 7 }).exitCode).toBe(7);
    // a newer supervisor's code this CLI does not know
    expect(new NerdrError('x', undefined, { code: 'brand_new' }).exitCode).toBe(1);
  });

  it('an unknown target whose message names windows "restarted-build" and "exited" still exits 1', () => {
    const e = socketError(reply('unknown_target', 'no agent "typo"; agents: restarted-build, exited-once, timed out'));
    expect(e.code).toBe('unknown_target');
    expect(e.exitCode).toBe(1);
  });

  it("takes the reply's fix field; the code's fix when it has none", () => {
    const e = socketError(reply('queue_write_failed', 'the message was not queued: disk full', 'free some space'));
    expect(e.code).toBe('queue_write_failed');
    expect(e.message).toBe('the message was not queued: disk full');
    expect(e.fixText).toBe('free some space');
    const bare = socketError(reply('unknown_target', 'no agent "x"'));
    expect(bare.fix).toBeUndefined();
    expect(bare.fixText).toBe(CODES.unknown_target.fix);
  });

  it('an older supervisor\'s "; fix: " tail is still split off', () => {
    const e = fromServerError('queue_write_failed', 'the message was not queued: disk full; fix: free some space');
    expect(e.message).toBe('the message was not queued: disk full');
    expect(e.fix).toBe('free some space');
    expect(fromServerError('x', 'plain').fix).toBeUndefined();
  });

  it("a request the client gave up on is no_answer, not the supervisor's timeout (exit 1, not 124)", () => {
    const e = socketError(new SocketRequestError('timeout', 'no answer from /x within 10000 ms'));
    expect(e.code).toBe('no_answer');
    expect(e.exitCode).toBe(1);
    expect(socketError(new SocketRequestError('connection_closed', 'closed')).code).toBe('connection_closed');
    expect(socketError(new SocketRequestError('server_not_running', 'not running')).fixText).toMatch(/nerdr supervisor start/);
  });

  it('a refused tmux command names the command', () => {
    const e = new TmuxCommandError('respawn-pane', "can't find pane: %99");
    expect(e.message).toBe("tmux respawn-pane failed: can't find pane: %99");
  });
});

describe('one status per meaning (docs/errors.md)', () => {
  it('every status the CLI ends with comes from the table', () => {
    expect(exitFor('failed')).toBe(1);
    expect(exitFor('usage')).toBe(2);
    expect(exitFor('not_running')).toBe(3); // nerdr supervisor status
    expect(exitFor('agent_gone')).toBe(3);
    expect(exitFor('stalled')).toBe(4); // send --wait
    expect(exitFor('no_supervisor')).toBe(5); // events
    expect(exitFor('no_server')).toBe(6); // events --no-start
    expect(exitFor('timeout')).toBe(124);
    expect(exitFor('cannot_drive')).toBe(2); // selftest
    expect(exitFor('selftest_wrong')).toBe(1);
    expect(SEND_EXIT).toEqual({ reached: 0, gone: 3, stalled: 4, timeout: 124 });
    expect([NO_SUPERVISOR_EXIT, NO_SERVER_EXIT]).toEqual([5, 6]);
  });

  it('every code has a fix of its own words and an exit status', () => {
    for (const [code, e] of Object.entries(CODES)) {
      expect(e.fix.length, code).toBeGreaterThan(10);
      expect(e.fix, code).not.toMatch(/^fix:/);
      expect(Number.isInteger(e.exit) && e.exit > 0 && e.exit < 256, code).toBe(true);
    }
    expect(new Set(Object.values(CODES).map((e) => e.exit))).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 124]));
    expect(fixFor('not_in_the_table')).toBe(CODES.failed.fix);
  });

  it('the socket error codes the docs list are all in the table', async () => {
    const { readFileSync } = await import('node:fs');
    const doc = readFileSync(new URL('../../../docs/socket-protocol.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Error codes'), doc.indexOf('## `nerdr pane'));
    const listed = [...section.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
    expect(listed.length).toBeGreaterThan(10);
    for (const code of listed) expect(Object.hasOwn(CODES, code), code).toBe(true);
  });
});

describe('what the user reads', () => {
  it('a coded error: its message and its fix, never a stack', () => {
    const out = report(new NerdrError('no agent "x"', undefined, { code: 'unknown_target' }), false);
    expect(out.text).toBe(`nerdr: no agent "x"\n  fix: ${CODES.unknown_target.fix}\n`);
    expect(out.exit).toBe(1);
    expect(report(new NerdrError('gone', undefined, { code: 'agent_exited' }), false).exit).toBe(3);
    expect(report(new NerdrError('late', undefined, { code: 'timeout' }), false).exit).toBe(124);
  });

  it('an unexpected error: one line and where the stack is, the stack only with NERDR_DEBUG=1', () => {
    const boom = new TypeError("Cannot read properties of undefined (reading 'x')\nsecond line");
    const out = report(boom, false);
    expect(out.text).toBe(`nerdr: internal error: Cannot read properties of undefined (reading 'x')\n  fix: ${CODES.internal.fix}\n`);
    expect(out.text).not.toMatch(/\bat /);
    expect(out.exit).toBe(1);
    expect(report(boom, true).text).toContain(boom.stack!);
    expect(report('a string', false).text).toMatch(/^nerdr: internal error: a string\n/);
  });

  it('an unsafe socket folder is a coded error with its fix', () => {
    const e = new SocketSetupError('refusing to serve: /x is a symbolic link', 'use a real folder');
    expect(report(e, false).text).toBe('nerdr: refusing to serve: /x is a symbolic link\n  fix: use a real folder\n');
  });
});

describe('socket error replies', () => {
  it('a tmux refusal inside a method is tmux_error with a fix, not internal_error', () => {
    const e = asRpcError(new TmuxCommandError('kill-window', 'the command was skipped (the control client is gone)'));
    expect(e.code).toBe('tmux_error');
    expect(e.message).toBe('tmux kill-window failed: the command was skipped (the control client is gone)');
    expect(e.fix).toBe(CODES.tmux_error.fix);
  });

  it("anything else unexpected is internal_error, pointing to the supervisor's log", () => {
    const e = asRpcError(new Error('boom'));
    expect(e.code).toBe('internal_error');
    expect(e.fix).toMatch(/log/);
    const own = new RpcError('not_permitted', 'no', false, 'ask a person');
    expect(asRpcError(own)).toBe(own);
  });
});

describe('docs/errors.md', () => {
  it('lists every code of the table with its exit status and fix', async () => {
    const { readFileSync } = await import('node:fs');
    const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
    const rows = new Map([...doc.matchAll(/^\| `([a-z_]+)` \| (\d+) \| (.*) \|$/gm)].map((m) => [m[1]!, { exit: Number(m[2]), fix: m[3]!.replace(/\\\|/g, '|') }]));
    expect([...rows.keys()]).toEqual(Object.keys(CODES));
    for (const [code, e] of Object.entries(CODES)) expect(rows.get(code), code).toEqual({ exit: e.exit, fix: e.fix });
  });
});
