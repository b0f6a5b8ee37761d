// Engine level and manifest version strings (docs/manifest-format.md, "The file").

/**
 * Feature level of this engine: 1 = screen regions, 2 = osc_title/osc_progress regions,
 * 3 = top_non_empty_lines(N). nerdr implements all of them.
 */
export const ENGINE_VERSION = 3;

const U64_MAX = (1n << 64n) - 1n;

/** Parse a dotted numeric version ("2026.08.21.1"); surrounding whitespace is ignored. Null if invalid. */
export function parseVersion(raw: string): bigint[] | null {
  const s = raw.trim();
  if (s === '') return null;
  const parts = s.split('.');
  const out: bigint[] = [];
  for (const p of parts) {
    if (!/^[0-9]+$/.test(p)) return null;
    const n = BigInt(p);
    if (n > U64_MAX) return null;
    out.push(n);
  }
  return out;
}

/** Compare segment by segment as integers; a missing segment counts as 0 (1.2 = 1.2.0). */
export function compareVersions(a: readonly bigint[], b: readonly bigint[]): number {
  const n = Math.max(a.length, b.length);
  for (let k = 0; k < n; k++) {
    const x = a[k] ?? 0n;
    const y = b[k] ?? 0n;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** compareVersions on strings; throws on an invalid string. */
export function compareVersionStrings(a: string, b: string): number {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  if (!pa || !pb) throw new Error(`invalid version: ${pa ? b : a}`);
  return compareVersions(pa, pb);
}
