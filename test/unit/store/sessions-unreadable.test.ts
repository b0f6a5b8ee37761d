// A saved session that is there but cannot be read is named, with the fix: never "nothing saved".
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore, sessionBase } from '../../../src/store/sessions.js';

describe('SessionStore with an unreadable file', () => {
  const made: string[] = [];
  afterEach(() => {
    for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('list() records the problem; load() throws it; save() does not write over it', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-sessions-'));
    made.push(dir);
    // a folder where the file should be: unreadable for root too (EISDIR)
    const file = path.join(dir, `${sessionBase('/tmp/sock', 'work')}.json`);
    mkdirSync(file);
    const store = new SessionStore(dir);
    expect(store.list('/tmp/sock')).toEqual([]);
    expect(store.problems()).toHaveLength(1);
    expect(store.problems()[0]).toMatch(/cannot be read \(EISDIR\).*fix: /);
    expect(() => store.load('/tmp/sock', 'work')).toThrow(/cannot be read \(EISDIR\)/);
    expect(() => store.save({ version: 1, server: '/tmp/sock', session: 'work', savedAt: new Date().toISOString(), windows: [] })).toThrow(/cannot be read/);
  });
});
