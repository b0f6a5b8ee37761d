import { describe, expect, it } from 'vitest';
import { degradedOn, tmuxFeatures } from '../../../src/tmux/features.js';

describe('tmuxFeatures', () => {
  it('3.2a: control clients are sized, no allow-passthrough option, tabs as spaces; doctor names the degradation', () => {
    const f = tmuxFeatures('3.2a');
    expect(f).toMatchObject({ controlClientSized: true, passthroughOption: false, captureKeepsTabs: false });
    expect(degradedOn(f).join(' ')).toMatch(/ignore-size/);
  });

  it('3.3a and 3.7c: nothing degraded', () => {
    expect(tmuxFeatures('tmux 3.3a')).toMatchObject({ controlClientSized: false, passthroughOption: true, captureKeepsTabs: false });
    expect(tmuxFeatures('3.7c')).toMatchObject({ controlClientSized: false, passthroughOption: true, captureKeepsTabs: true });
    expect(degradedOn(tmuxFeatures('3.3a'))).toEqual([]);
    expect(degradedOn(tmuxFeatures('tmux next-3.8'))).toEqual([]);
  });

  it('the exit guard on every version (a pane can lose its last output, 3.7 included; before 3.3 the server can crash)', () => {
    for (const v of ['3.2a', '3.3a', '3.4', '3.6a', '3.7', '3.7c', 'tmux next-3.8']) expect(tmuxFeatures(v).exitGuard, v).toBe(true);
  });
});
