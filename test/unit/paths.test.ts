// The state folder holds the socket and the windows' secrets: problems are said at once, with the fix.
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NerdrError } from '../../src/errors.js';
import { ensureStateDir } from '../../src/paths.js';

describe('ensureStateDir', () => {
  const made: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'nerdr-state-'));
    made.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const at = (dir: string) => ({ NERDR_STATE_DIR: dir });

  it('creates a missing folder 0700, whatever the umask', () => {
    const dir = path.join(tmp(), 'a', 'state');
    const old = process.umask(0o022);
    try {
      ensureStateDir(at(dir));
    } finally {
      process.umask(old);
    }
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
  });

  it('a symbolic link is refused, naming the real folder', () => {
    const base = tmp();
    mkdirSync(path.join(base, 'real'), { mode: 0o700 });
    symlinkSync(path.join(base, 'real'), path.join(base, 'link'));
    const err = (() => {
      try {
        ensureStateDir(at(path.join(base, 'link')));
      } catch (e) {
        return e as NerdrError;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(NerdrError);
    expect(err!.message).toMatch(/is a symbolic link/);
    expect(err!.fix).toContain(`NERDR_STATE_DIR=${path.join(base, 'real')}`);
  });

  it('a file where the folder should be is refused', () => {
    const f = path.join(tmp(), 'file');
    writeFileSync(f, '');
    expect(() => ensureStateDir(at(f))).toThrow(/is not a folder/);
  });

  it.skipIf(process.getuid?.() !== 0)('a folder of another user is refused (run as root: chown to nobody)', () => {
    const dir = path.join(tmp(), 'theirs');
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, 65534, 65534);
    expect(() => ensureStateDir(at(dir))).toThrow(/belongs to uid 65534, not to you/);
  });

  it('a folder open to others is made private, and the warning says so', () => {
    const dir = path.join(tmp(), 'open');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const said: string[] = [];
    ensureStateDir(at(dir), (m) => said.push(m));
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/was open to group\/others \(mode 0777\)/);
    // a private folder: nothing to say
    ensureStateDir(at(dir), (m) => said.push(m));
    expect(said).toHaveLength(1);
  });
});
