// Every real screen must classify to its true state: test/fixtures/real/screens (index.json) and our
// own captures in test/fixtures/screens (index.json there).
// `exited` screens are skipped (that is the process path's job); `done` is engine idle.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { detectRawScreen, ManifestRegistry } from '../../../src/detect/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const screensDir = path.resolve(repoRoot, 'test/fixtures/real/screens');

interface Entry {
  agent: string;
  screen: string;
  state: string;
  /** What the manifest reads where it differs from the state (a limited screen: its prompt, or its dialog about the limit). */
  engine?: string;
}

const ownDir = path.resolve(repoRoot, 'test/fixtures/screens');
const read = (dir: string): (Entry & { dir: string })[] =>
  (JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8')) as { screens: Entry[] }).screens.map((e) => ({ ...e, dir }));
const index = { screens: [...read(screensDir), ...read(ownDir)] };
const registry = new ManifestRegistry({ env: { HOME: '/nonexistent-home-for-tests' } });

describe('real screens classify to their true state', () => {
  for (const e of index.screens.filter((s) => s.state !== 'exited')) {
    const expected = e.engine ?? (e.state === 'done' ? 'idle' : e.state);
    it(`${e.screen} → ${expected}`, () => {
      const loaded = registry.get(e.agent);
      expect(loaded, `no bundled manifest for ${e.agent}`).toBeDefined();
      const raw = fs.readFileSync(path.join(e.dir, `${e.screen}.txt`), 'utf8');
      const r = detectRawScreen(loaded!, raw);
      expect({ state: r.state, rule: r.rule }).toMatchObject({ state: expected });
      // Real screens are clear evidence: the winner should be a visible rule, never the fallback
      // (a screen that is not ready yet, as Qwen's "Initializing...", by a rule of its own)
      expect(r.fallbackReason).toBeNull();
      if (expected === 'unknown') expect(r.rule).toBeTruthy();
      else expect(r.visibleIdle || r.visibleBlocker || r.visibleWorking).toBe(true);
    });
  }
});
