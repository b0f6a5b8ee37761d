import { describe, expect, it } from 'vitest';
import { hashSecret, newSecret } from '../../../src/supervisor/create.js';

describe('window secrets', () => {
  it('never start with "-" (herdr hooks pass them as the first CLI argument); 1 in 64 base64url strings does', () => {
    // 4096 draws: with the old 1-in-64 chance, P(no "-" at all) = (63/64)^4096 ≈ 1e-28
    const seen = new Set<string>();
    for (let i = 0; i < 4096; i++) {
      const s = newSecret();
      expect(s).not.toMatch(/^-/);
      expect(s).toMatch(/^[A-Za-z0-9_-]{32}$/);
      seen.add(s);
    }
    expect(seen.size).toBe(4096);
  });

  it('are stored only as their sha256', () => {
    expect(hashSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
