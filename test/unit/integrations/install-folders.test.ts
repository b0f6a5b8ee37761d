// The two traits of an install file `nerdr integrations` reads instead of naming agents: the
// folder that is wholly nerdr's (removed once empty), and a home file the agent loads whenever
// it is there.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installFile, uninstallFile, usesHomeFile, type InstallCtx } from '../../../src/integrations/install.js';
import { copilotFiles } from '../../../src/integrations/copilot.js';
import { geminiFiles } from '../../../src/integrations/gemini.js';
import { grokFiles } from '../../../src/integrations/grok.js';

const packageRoot = path.resolve(import.meta.dirname, '..', '..', '..');
let root: string;
let c: InstallCtx;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'nerdr-folders-'));
  c = { env: { HOME: path.join(root, 'home') }, cwd: path.join(root, 'proj'), nerdrBin: '/x/bin/nerdr.js', packageRoot, stateDir: path.join(root, 'state') };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('install files', () => {
  it("copilot's plugin and gemini's extension are folders of nerdr's own, holding their file", () => {
    for (const m of ['home', 'worktree'] as const) expect(path.dirname(path.dirname(copilotFiles.file(m, c)))).toBe(copilotFiles.folder!(m, c));
    expect(path.dirname(path.dirname(geminiFiles.file('home', c)))).toBe(geminiFiles.folder!('home', c));
    expect(grokFiles.folder).toBeUndefined();
  });

  it('uninstalling up to the parent of that folder leaves nothing of it', () => {
    installFile(geminiFiles, 'home', c);
    const folder = geminiFiles.folder!('home', c);
    expect(existsSync(folder)).toBe(true);
    uninstallFile(geminiFiles, 'home', c, path.dirname(folder));
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(path.dirname(folder))).toBe(true);
  });

  it('a home file the agent loads whenever it is there is used in any mode once installed, unless hooks are refused', () => {
    expect(usesHomeFile(geminiFiles, 'off', true, c)).toBe(false);
    expect(usesHomeFile(geminiFiles, 'home', true, c)).toBe(true);
    expect(usesHomeFile(geminiFiles, 'home', false, c)).toBe(false);
    installFile(geminiFiles, 'home', c);
    expect(usesHomeFile(geminiFiles, 'off', true, c)).toBe(true);
    expect(usesHomeFile(geminiFiles, 'off', false, c)).toBe(false);
    installFile(grokFiles, 'home', c);
    expect(usesHomeFile(grokFiles, 'off', true, c)).toBe(false);
  });
});
