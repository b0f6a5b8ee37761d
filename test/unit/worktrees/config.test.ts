// [worktrees] in config.toml, and where worktrees go.

import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config.js';
import { worktreeName, worktreeRoot } from '../../../src/worktrees/create.js';

describe('[worktrees]', () => {
  it('reads root, copy, setup and rm_ignored; defaults when absent', () => {
    expect(parseConfig('').config.worktrees).toEqual({ root: null, copy: [], setup: null, rm_ignored: [], check: null });
    const { config, problems } = parseConfig('[worktrees]\nroot = "~/wt"\ncopy = [".env", "config/local.json"]\nsetup = "npm ci"\nrm_ignored = ["build/", "node_modules"]\n');
    expect(problems).toEqual([]);
    expect(config.worktrees).toEqual({ root: '~/wt', copy: ['.env', 'config/local.json'], setup: 'npm ci', rm_ignored: ['build/', 'node_modules'], check: null });
  });

  it('reads check as an argv (no shell); a string or an empty list is refused', () => {
    expect(parseConfig('[worktrees]\ncheck = ["npm", "test"]\n').config.worktrees.check).toEqual(['npm', 'test']);
    for (const bad of ['check = "npm test"', 'check = []', 'check = [""]', 'check = [1]']) {
      const r = parseConfig(`[worktrees]\n${bad}\n`);
      expect(r.config.worktrees.check, bad).toBeNull();
      expect(r.problems.map((p) => p.key), bad).toEqual(['worktrees.check']);
    }
  });

  it('reports bad values by key and keeps the defaults', () => {
    const { config, problems } = parseConfig('[worktrees]\nroot = 3\ncopy = ["../x", "/etc/passwd"]\nsetup = ["npm", "ci"]\nrm_ignored = ["../up", "/"]\nother = 1\n');
    expect(config.worktrees).toEqual({ root: null, copy: [], setup: null, rm_ignored: [], check: null });
    expect(problems.map((p) => p.key)).toEqual(['worktrees.root', 'worktrees.copy', 'worktrees.setup', 'worktrees.rm_ignored', 'worktrees.other']);
    expect(parseConfig('[worktrees]\nrm_ignored = "build/"\n').problems.map((p) => p.key)).toEqual(['worktrees.rm_ignored']);
  });

  it('puts worktrees beside the repository unless root says otherwise; / in a branch becomes -', () => {
    const none = { root: null, copy: [], setup: null, rm_ignored: [], check: null };
    expect(worktreeRoot('/src/app', none)).toBe('/src/app.worktrees');
    expect(worktreeRoot('/src/app', { ...none, root: '~/wt' }, '/home/u')).toBe('/home/u/wt');
    expect(worktreeRoot('/src/app', { ...none, root: '../trees' })).toBe('/src/trees');
    expect(worktreeName('feat/a/b')).toBe('feat-a-b');
  });
});
