// What `nerdr doctor` says of the locale and of a supervisor that misreads tmux (src/cli/doctor-locale.ts).
import { describe, expect, it } from 'vitest';
import { localeCheck, localeVariable, supervisorCheck, utf8Locale } from '../../../src/cli/doctor-locale.js';

describe('doctor: the locale', () => {
  it("reads the variable tmux reads: the first of LC_ALL, LC_CTYPE, LANG that is set and not empty", () => {
    expect(localeVariable({ LANG: 'en_US.UTF-8', LC_CTYPE: 'C', LC_ALL: '' })).toEqual({ name: 'LC_CTYPE', value: 'C' });
    expect(utf8Locale({ LANG: 'en_US.UTF-8', LC_CTYPE: 'C' })).toBe(false);
    expect(utf8Locale({ LC_ALL: 'de_DE.utf8', LANG: 'C' })).toBe(true);
    expect(utf8Locale({ LANG: 'C.UTF-8' })).toBe(true);
    expect(utf8Locale({})).toBe(false);
  });

  it('a UTF-8 locale is ok and named', () => {
    expect(localeCheck({ LANG: 'C.UTF-8' })).toEqual({ name: 'locale', ok: true, detail: 'LANG=C.UTF-8' });
  });

  it('none is a warning, not a failure: nerdr copes, and the effect and the fix are named', () => {
    const c = localeCheck({ PATH: '/usr/bin' });
    expect(c.ok).toBe(true);
    expect(c.warn).toBe(true);
    expect(c.detail).toMatch(/^no UTF-8 locale here \(LC_ALL, LC_CTYPE and LANG unset\): nerdr copes/);
    expect(c.detail).toContain('draws _ for the lights');
    expect(c.fix).toMatch(/LANG=C\.UTF-8/);
    expect(localeCheck({ LANG: 'POSIX' }).detail).toMatch(/^no UTF-8 locale here \(LANG=POSIX\)/);
  });
});

describe('doctor: does the supervisor read tmux', () => {
  it('ok with the tmux version and its agents', () => {
    expect(supervisorCheck({ pid: 12, ready: true, clientPid: 34, tmuxVersion: '3.3a', agents: 2 })).toEqual({ name: 'supervisor', ok: true, detail: 'pid 12 on tmux 3.3a, 2 agent(s)' });
  });

  it("a reply it could not split (no version, a NaN pid sent as null) fails, with the restart as the fix", () => {
    const c = supervisorCheck({ pid: 12, ready: true, clientPid: null, tmuxVersion: '', agents: 1 });
    expect(c.ok).toBe(false);
    expect(c.detail).toMatch(/^pid 12 misreads tmux/);
    expect(c.fix).toMatch(/^nerdr supervisor restart/);
  });

  it('one still connecting is not judged', () => {
    expect(supervisorCheck({ pid: 12, ready: false, clientPid: 0, tmuxVersion: '', agents: 0 })).toMatchObject({ ok: true, detail: 'pid 12 (connecting), 0 agent(s)' });
  });
});
