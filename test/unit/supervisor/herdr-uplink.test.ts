// nerdr inside herdr (src/supervisor/herdr-uplink.ts): which pane, what is reported, and how often.
import { describe, expect, it } from 'vitest';
import { FocusSwitch, focusWatchCommands, HerdrUplink, herdrTarget, uplinkReport } from '../../../src/supervisor/herdr-uplink.js';
import type { AgentRow } from '../../../src/protocol/index.js';

const row = (name: string, state: string, stateSince = 1): AgentRow => ({ name, state, stateSince }) as unknown as AgentRow;

describe('herdrTarget', () => {
  const herdr = { HERDR_ENV: '1', HERDR_PANE_ID: 'p-7', HERDR_BIN_PATH: '/opt/herdr/bin/herdr' };
  it('a shell in a herdr pane: report to that pane with its herdr', () => {
    expect(herdrTarget(herdr, '/n/bin/nerdr.js', '/s/nerdr.sock')).toEqual({ bin: '/opt/herdr/bin/herdr', pane: 'p-7' });
  });
  it("not when the variables are nerdr's own (a nerdr agent window sets them), nor outside herdr", () => {
    expect(herdrTarget({ ...herdr, HERDR_BIN_PATH: '/n/bin/nerdr.js' }, '/n/bin/nerdr.js', '/s/nerdr.sock')).toBeNull();
    expect(herdrTarget({ ...herdr, HERDR_SOCKET_PATH: '/s/nerdr.sock' }, '/n/bin/nerdr.js', '/s/nerdr.sock')).toBeNull();
    expect(herdrTarget({ ...herdr, NERDR_TAB: 'secret' }, '/n/bin/nerdr.js', '/s/nerdr.sock')).toBeNull();
    expect(herdrTarget({ HERDR_PANE_ID: 'p-7' }, '/n/bin/nerdr.js', '/s/nerdr.sock')).toBeNull();
  });
});

describe('uplinkReport', () => {
  it('blocked, then working, then done (reported idle: herdr makes it done), then idle; the oldest in that state named', () => {
    expect(uplinkReport([row('a', 'idle'), row('b', 'working', 5), row('c', 'blocked', 9), row('d', 'blocked', 3)])).toEqual({ state: 'blocked', message: 'd: needs you (+1 more)' });
    expect(uplinkReport([row('a', 'idle'), row('b', 'working')])).toEqual({ state: 'working', message: 'b: working' });
    expect(uplinkReport([row('a', 'idle'), row('b', 'done')])).toEqual({ state: 'idle', message: 'b: done' });
    expect(uplinkReport([row('a', 'exited')])).toEqual({ state: 'idle', message: 'nerdr: no agent is working' });
    expect(uplinkReport([])).toEqual({ state: 'idle', message: 'nerdr: no agents' });
  });
});

describe('HerdrUplink', () => {
  it("calls herdr's pane report-agent when the report changes, one call at a time, the latest last, seq rising", () => {
    const calls: string[][] = [];
    const done: ((e: Error | null) => void)[] = [];
    const up = new HerdrUplink({ bin: '/h', pane: 'p-7' }, () => undefined, (_bin, args, cb) => {
      calls.push(args);
      done.push(cb);
    });
    up.update([row('a', 'working')]);
    up.update([row('a', 'working')]);
    up.update([row('a', 'blocked')]);
    up.update([row('a', 'done')]);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toEqual(['pane', 'report-agent', 'p-7', '--source', 'nerdr', '--agent', 'nerdr', '--state', 'working', '--message', 'a: working', '--seq', '1']);
    done.shift()!(null);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toEqual(expect.arrayContaining(['--state', 'idle', '--message', 'a: done', '--seq', '2']));
    done.shift()!(null);
    expect(calls).toHaveLength(2);
  });
});

describe('FocusSwitch', () => {
  const blocked = { ...row('a', 'blocked', 5), id: 'a1' } as AgentRow;
  it('a new focus goes to the most urgent agent once per urgent event; a repeated report is no focus', () => {
    const f = new FocusSwitch();
    expect(f.focused('0|', [blocked])).toBeNull();
    expect(f.focused('1|/dev/pts/3', [blocked])).toEqual({ client: '/dev/pts/3', agent: blocked });
    expect(f.focused('1|/dev/pts/3', [blocked])).toBeNull();
    expect(f.focused('2|/dev/pts/3', [blocked])).toEqual({ client: '/dev/pts/3', stay: 'a (blocked) was shown already' });
    const again = { ...blocked, stateSince: 9 };
    expect(f.focused('3|/dev/pts/3', [again])).toEqual({ client: '/dev/pts/3', agent: again });
    expect(f.focused('4|/dev/pts/3', [row('b', 'working')])).toEqual({ client: '/dev/pts/3', stay: 'nothing needs the user' });
  });

  it('the hook has its own index, so the user\'s client-focus-in hooks stay', () => {
    expect(focusWatchCommands().map((c) => c[2])).toContain('client-focus-in[77]');
  });
});
