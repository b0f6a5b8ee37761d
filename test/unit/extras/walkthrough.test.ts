// readWalkthrough: which steps are a window's, in the order written; stepFile: paths as stored.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readWalkthrough, stepFile } from '../../../src/extras/walkthrough.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-walk-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const step = (text: string, window: string, conversation: string | null) =>
  JSON.stringify({ time: '2026-12-01T10:00:00.000Z', agent: 'claude', name: 'n', window, pane: '%1', conversation, cwd: '/w', text, file: null, line: null });

describe('readWalkthrough', () => {
  it('takes the window\'s steps and its conversation\'s, in order; a reused window id of another conversation is not its', () => {
    const file = path.join(dir, 'walkthrough.jsonl');
    writeFileSync(
      file,
      [step('old server, same id', '@3', 'c-old'), step('one', '@3', 'c1'), 'not json', step('other window', '@4', 'c2'), step('no conversation known', '@3', null), step('after restore', '@9', 'c1'), '{"torn":'].join('\n') + '\n',
    );
    expect(readWalkthrough({ window: '@3', conversation: 'c1' }, file).map((s) => s.text)).toEqual(['one', 'no conversation known', 'after restore']);
    expect(readWalkthrough('@3', file).map((s) => s.text)).toEqual(['old server, same id', 'one', 'no conversation known']);
    expect(readWalkthrough('@3', path.join(dir, 'none.jsonl'))).toEqual([]);
  });

  it('stores a file relative to the window\'s folder, absolute when outside it', () => {
    expect(stepFile('app.ts', '/w/tree/src', '/w/tree')).toBe('src/app.ts');
    expect(stepFile('/etc/hosts', '/w/tree', '/w/tree')).toBe('/etc/hosts');
    expect(stepFile('../../x', '/w/tree/src', '/w/tree')).toBe('/w/x');
  });
});
