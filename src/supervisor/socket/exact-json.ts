// Exact access to numbers JSON.parse would round. herdr's `seq` is a u64 and Python hooks send
// wall-clock nanoseconds (~1.7e18 > 2^53), so the value must be read from the raw text.
//
// `rawValueAt` walks text that JSON.parse already accepted and returns the source text of the
// value found at a path of object keys (the last duplicate wins, as with JSON.parse).

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

class Scanner {
  i = 0;
  constructor(readonly s: string) {}

  ws(): void {
    while (this.i < this.s.length && WS.has(this.s.charCodeAt(this.i))) this.i++;
  }

  /** Skips a string starting at `"`; returns its decoded value only when `decode` is set. */
  string(decode: boolean): string | undefined {
    const start = this.i;
    this.i++; // opening quote
    for (;;) {
      const q = this.s.indexOf('"', this.i);
      if (q === -1) throw new Error('unterminated string');
      // Count the backslashes right before the quote: an odd number escapes it.
      let b = q - 1;
      while (b >= start && this.s.charCodeAt(b) === 0x5c) b--;
      this.i = q + 1;
      if ((q - 1 - b) % 2 === 0) break;
    }
    return decode ? (JSON.parse(this.s.slice(start, this.i)) as string) : undefined;
  }

  /** Skips any value; returns [start, end) of its text. */
  value(): [number, number] {
    this.ws();
    const start = this.i;
    const c = this.s[this.i];
    if (c === '"') this.string(false);
    else if (c === '{' || c === '[') this.container();
    else {
      while (this.i < this.s.length && !/[\s,\]}]/.test(this.s[this.i]!)) this.i++;
    }
    return [start, this.i];
  }

  private container(): void {
    let depth = 0;
    while (this.i < this.s.length) {
      const c = this.s[this.i]!;
      if (c === '"') {
        this.string(false);
        continue;
      }
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) {
          this.i++;
          return;
        }
      }
      this.i++;
    }
    throw new Error('unterminated container');
  }

  /** Inside an object at `{`: calls `onMember(key)` with the scanner at the member's value. */
  members(onMember: (key: string) => void): void {
    this.ws();
    if (this.s[this.i] !== '{') throw new Error('not an object');
    this.i++;
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return;
    }
    for (;;) {
      this.ws();
      const key = this.string(true)!;
      this.ws();
      this.i++; // ':'
      onMember(key);
      this.ws();
      const c = this.s[this.i];
      this.i++;
      if (c === '}') return;
    }
  }
}

/**
 * The raw source text of the value at `path` in the JSON `text` (which must already be valid
 * JSON), or undefined when some step is missing or not an object.
 */
export function rawValueAt(text: string, path: readonly string[]): string | undefined {
  const sc = new Scanner(text);
  const find = (depth: number): string | undefined => {
    let found: string | undefined;
    sc.ws();
    if (sc.s[sc.i] !== '{') {
      sc.value();
      return undefined;
    }
    sc.members((key) => {
      if (key === path[depth]) {
        if (depth === path.length - 1) {
          const [a, b] = sc.value();
          found = sc.s.slice(a, b);
        } else {
          const start = sc.i;
          const inner = find(depth + 1);
          // A later duplicate key replaces an earlier one, found or not.
          found = inner;
          if (sc.i === start) sc.value();
        }
      } else {
        sc.value();
      }
    });
    return found;
  };
  try {
    return find(0);
  } catch {
    return undefined;
  }
}

const U64_MAX = (1n << 64n) - 1n;

/**
 * Parses the raw JSON text of a u64 as serde_json would: digits only, no sign, fraction or
 * exponent, at most 2^64-1. Returns null for JSON `null`, undefined when invalid.
 */
export function parseU64(raw: string): bigint | null | undefined {
  if (raw === 'null') return null;
  if (!/^(0|[1-9][0-9]*)$/.test(raw)) return undefined;
  if (raw.length > 20) return undefined;
  const v = BigInt(raw);
  return v <= U64_MAX ? v : undefined;
}

/** JSON.stringify that writes bigints as exact JSON integers. */
export function stringifyExact(value: unknown): string {
  let sawBig = false;
  const out = JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'bigint') {
      sawBig = true;
      return `\u0000bigint:${v.toString()}\u0000`;
    }
    return v;
  });
  if (!sawBig) return out;
  return out.replace(/"\\u0000bigint:(-?[0-9]+)\\u0000"/g, '$1');
}
