import { describe, expect, it } from 'vitest';
import { exitStatus, EXIT_STATUS } from '../../../src/cli/main.js';
import { socketError } from '../../../src/cli/context.js';
import { NerdrError, TmuxCommandError, fromServerError } from '../../../src/errors.js';
import { SocketRequestError } from '../../../src/supervisor/socket/client.js';

const reply = (code: string, message: string) => new SocketRequestError(code, message, { id: 'x', error: { code, message } });

describe('exit statuses come from error codes, never from message text', () => {
  it('maps the wait codes, and anything else to 1', () => {
    expect(exitStatus(new NerdrError('x', undefined, { code: 'agent_exited' }))).toBe(3);
    expect(exitStatus(new NerdrError('x', undefined, { code: 'agent_replaced' }))).toBe(3);
    expect(exitStatus(new NerdrError('x', undefined, { code: 'agent_gone' }))).toBe(3);
    expect(exitStatus(new NerdrError('x', undefined, { code: 'timeout' }))).toBe(124);
    expect(exitStatus(new NerdrError('x', undefined, { code: 'unknown_target' }))).toBe(1);
    expect(exitStatus(new NerdrError('x'))).toBe(1);
    expect(exitStatus(new NerdrError('x', undefined, { code: 'timeout', exitCode: 7 }))).toBe(7);
    expect(Object.keys(EXIT_STATUS).sort()).toEqual(['agent_exited', 'agent_gone', 'agent_replaced', 'timeout']);
  });

  it('an unknown target whose message names windows "restarted-build" and "exited" still exits 1', () => {
    const e = socketError(reply('unknown_target', 'no agent "typo"; agents: restarted-build, exited-once, timed out'));
    expect(e.code).toBe('unknown_target');
    expect(exitStatus(e)).toBe(1);
  });

  it('keeps the server code, splits a "; fix: " tail off the message', () => {
    const e = socketError(reply('queue_write_failed', 'the message was not queued: disk full; fix: free some space'));
    expect(e.code).toBe('queue_write_failed');
    expect(e.message).toBe('the message was not queued: disk full');
    expect(e.fix).toBe('free some space');
    expect(fromServerError('x', 'plain').fix).toBeUndefined();
  });

  it("a request the client gave up on is no_answer, not the supervisor's timeout (exit 1, not 124)", () => {
    const e = socketError(new SocketRequestError('timeout', 'no answer from /x within 10000 ms'));
    expect(e.code).toBe('no_answer');
    expect(exitStatus(e)).toBe(1);
    expect(socketError(new SocketRequestError('connection_closed', 'closed')).code).toBe('connection_closed');
  });

  it('a refused tmux command names the command', () => {
    const e = new TmuxCommandError('respawn-pane', "can't find pane: %99");
    expect(e.message).toBe("tmux respawn-pane failed: can't find pane: %99");
  });
});
