import { describe, expect, it } from 'vitest';
import { paneSubscriptionSpec, parseSubscriptionChange } from '../../../src/supervisor/pane-watch.js';
import { CLIENT_VIEWS_FORMAT, parseClientViews } from '../../../src/supervisor/client-list.js';

describe("a pane's subscription", () => {
  it('names its pane and no other (never `%*`: docs/tmux.md)', () => {
    expect(paneSubscriptionSpec('%12')).toBe('nerdr-p%12:%12:#{pane_dead}|#{pane_dead_status}|#{pane_in_mode}|#{@nerdr_exit_status}|#{pane_current_command}');
  });

  it("a pane's change: dead with its status, else the exit guard's; a command may hold a |", () => {
    expect(parseSubscriptionChange('nerdr-p%1 $1 @1 1 %1 : 1|3|0||')).toEqual({ kind: 'pane', change: { pane: '%1', dead: true, status: '3', inMode: false, command: '' } });
    expect(parseSubscriptionChange('nerdr-p%1 $1 @1 1 %1 : 1||0|7|')).toMatchObject({ change: { dead: true, status: '7' } });
    expect(parseSubscriptionChange('nerdr-p%4 $1 @2 0 %4 : 0||1|7|sh -c a|b')).toEqual({ kind: 'pane', change: { pane: '%4', dead: false, status: '', inMode: true, command: 'sh -c a|b' } });
  });

  it("another subscription's value is passed on; a line without ' : ' is nothing", () => {
    expect(parseSubscriptionChange('nerdr-status $1 - - - : a : b')).toEqual({ kind: 'other', name: 'nerdr-status', value: 'a : b' });
    expect(parseSubscriptionChange('nerdr-p%1 $1 @1')).toBeNull();
    // the name is a pane's only with the pane after it
    expect(parseSubscriptionChange('nerdr-p $1 @1 1 %1 : 1|3|0||')).toMatchObject({ kind: 'other', name: 'nerdr-p' });
  });
});

describe('the list-clients rows a notification reads', () => {
  it('control mode, window, tty, and passthrough as each tmux prints it', () => {
    expect(CLIENT_VIEWS_FORMAT.split('\t')).toHaveLength(4);
    const rows = ['1\t@1\t/dev/pts/1\toff', '0\t@2\t/dev/pts/2\tall', '0\t@3\t/dev/pts/3\t1'];
    expect(parseClientViews(rows, true).map((c) => [c.control, c.windowId, c.paneTty, c.passthrough])).toEqual([
      [true, '@1', '/dev/pts/1', false],
      [false, '@2', '/dev/pts/2', true],
      [false, '@3', '/dev/pts/3', true],
    ]);
    // a tmux without allow-passthrough passes everything
    expect(parseClientViews(['0\t@1\t/dev/pts/1\t'], false)[0]!.passthrough).toBe(true);
  });
});
