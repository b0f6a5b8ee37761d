// `nerdr detect` internals: --ansi rendering gives the same text/state as the plain capture.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderAnsiRows, runDetect } from '../../../src/cli/detect.js';
import { checkFile } from '../../../src/cli/manifests.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const screensDir = path.resolve(repoRoot, 'test/fixtures/real/screens');
const index = JSON.parse(fs.readFileSync(path.join(screensDir, 'index.json'), 'utf8')) as {
  screens: { agent: string; screen: string; state: string }[];
};
const base = { cols: '120', manifests: [] as string[] };

describe('detect --ansi', () => {
  for (const e of index.screens) {
    it(`${e.screen}: ANSI capture gives the same state and rule as the plain one`, async () => {
      const plain = await runDetect({ ...base, agent: e.agent, screen: path.join(screensDir, `${e.screen}.txt`) });
      const ansi = await runDetect({ ...base, agent: e.agent, ansi: true, screen: path.join(screensDir, `${e.screen}.ansi.txt`) });
      expect({ state: ansi.report.state, rule: ansi.report.rule }).toEqual({ state: plain.report.state, rule: plain.report.rule });
      expect(plain.report.manifest.source).toBe('bundled');
    });
  }
});

describe('detect --ansi renders as the live mirror does', () => {
  it("an emoji takes tmux's two columns, so what follows stays in its cell", async () => {
    // 🎉 then the cursor to column 3: tmux (and the mirror) put X right after the emoji
    const [row] = await renderAnsiRows('\u{1F389}\x1b[3GX', 10);
    expect(row!.trimEnd()).toBe('\u{1F389}X');
  });
});

describe('detect errors', () => {
  it('unknown agent lists the known ones', async () => {
    await expect(runDetect({ ...base, agent: 'nope', screen: '-' })).rejects.toThrow(/Known agents: .*claude/);
  });
  it('--manifests adds agents', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nerdr-detect-'));
    try {
      fs.writeFileSync(path.join(dir, 'toy.toml'), 'id = "toy"\n[[rules]]\nid = "busy"\nstate = "working"\ncontains = ["busy"]\n');
      fs.writeFileSync(path.join(dir, 'screen.txt'), 'I am BUSY\r\n');
      const { report } = await runDetect({ ...base, agent: 'toy', screen: path.join(dir, 'screen.txt'), manifests: [dir] });
      expect(report).toMatchObject({ state: 'working', rule: 'busy', manifest: { source: 'extra' } });
      expect(checkFile(path.join(dir, 'toy.toml')).warnings.join()).toMatch(/version is missing/);
      fs.writeFileSync(path.join(dir, 'bad.toml'), 'id = "bad"\n');
      expect(checkFile(path.join(dir, 'bad.toml'))).toMatchObject({ ok: false });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
