// Control characters never reach the supervisor: every string in a request's params (keys
// included) loses C0, DEL and C1 characters. Tabs and line breaks become a space so words stay
// apart; everything else is removed.

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex
const CONTROL_ALL = /[\u0000-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex
const SPACING = /[\t\n\r\v\f]/g;

export function hasControlChars(s: string): boolean {
  return CONTROL.test(s);
}

export function stripControl(s: string): string {
  if (!CONTROL.test(s)) return s;
  return s.replace(SPACING, ' ').replace(CONTROL_ALL, '');
}

/** A copy of `value` with every string cleaned; numbers, booleans and null pass through. */
export function sanitize(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return stripControl(value);
  if (value === null || typeof value !== 'object') return value;
  // JSON.parse output cannot be cyclic; the depth cap only guards handcrafted objects.
  if (depth > 200) return null;
  if (Array.isArray(value)) return value.map((v) => sanitize(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const key = stripControl(k);
    // `__proto__` as an own key from JSON.parse must stay data, not become a prototype.
    Object.defineProperty(out, key, { value: sanitize(v, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
