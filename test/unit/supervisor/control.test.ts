// Which windows an agent may act on (src/supervisor/control.ts) and `[agents] control`.
import { describe, expect, it } from 'vitest';
import { childLineage, mayControl, type ControlNode } from '../../../src/supervisor/control.js';
import { parseConfig } from '../../../src/config.js';

const win = (id: string, parent: ControlNode | null): ControlNode => ({ id, name: `n-${id}`, windowId: `@${id}`, lineage: childLineage(parent) });

describe('mayControl', () => {
  const boss = win('a1', null);
  const helper = win('a2', boss);
  const grandchild = win('a3', helper);
  const other = win('a4', null);

  it('a person is never limited', () => {
    for (const t of [boss, helper, other]) expect(mayControl(null, t, 'stop', 'own')).toEqual({ ok: true });
  });

  it('an agent acts on the windows it started and theirs, even when the helper between is gone', () => {
    expect(grandchild.lineage).toEqual(['a2', 'a1']);
    expect(mayControl(boss, helper, 'stop', 'own').ok).toBe(true);
    expect(mayControl(boss, grandchild, 'send to', 'own').ok).toBe(true);
    expect(mayControl(helper, grandchild, 'focus', 'own').ok).toBe(true);
  });

  it('not on its parent, a sibling tree, itself or a window a person started; the refusal names both windows', () => {
    for (const t of [boss, other]) expect(mayControl(helper, t, 'stop', 'own').ok).toBe(false);
    expect(mayControl(boss, boss, 'stop', 'own').ok).toBe(false);
    const v = mayControl(helper, other, 'send to', 'own');
    expect(v.ok ? '' : v.reason).toBe('n-a2 (@a2) is an agent window: it may send to only the windows it started and theirs, and n-a4 (@a4) is not one of them');
  });

  it('[agents] control = "all" lets an agent act on every window', () => {
    expect(mayControl(helper, other, 'stop', 'all').ok).toBe(true);
  });
});

describe('[agents] control', () => {
  it('defaults to "own"; takes "all"; anything else is reported and "own" kept; [agents.<name>] still works beside it', () => {
    expect(parseConfig('').config.control).toBe('own');
    const all = parseConfig('[agents]\ncontrol = "all"\n[agents.claude]\nhooks = false\n');
    expect(all.problems).toEqual([]);
    expect(all.config.control).toBe('all');
    expect(all.config.agents.claude!.hooks).toBe(false);
    const bad = parseConfig('[agents]\ncontrol = "everyone"\n');
    expect(bad.config.control).toBe('own');
    expect(bad.problems).toEqual([{ key: 'agents.control', message: expect.stringMatching(/must be "own" .* or "all" \(got "everyone"\)/), used: '"own"' }]);
  });
});
