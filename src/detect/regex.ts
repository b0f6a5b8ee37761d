// Rust `regex` crate syntax → JavaScript RegExp, keeping Rust's meaning (docs/manifest-format.md, "Regular expressions").
//
// The output is always compiled with the `u` flag (plus `i` for a leading `(?i)`). The `m` and `s`
// flags are never passed to JS: their effect is written out explicitly, because JS and Rust disagree
// on what a line terminator is and on what `\d \w \s \b .` mean. Constructs Rust has but the bundled
// manifests never use, and that have no exact JS equivalent (scoped or mid-pattern flag groups, nested
// classes and class set operations, `\z`-less oddities…), are refused with a RegexTranslationError.

export class RegexTranslationError extends Error {
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`cannot use regex ${JSON.stringify(pattern)}: ${reason}`);
    this.name = 'RegexTranslationError';
  }
}

/** Unicode White_Space, as Rust's `\s` (no U+FEFF, with U+0085). Class contents, no brackets. */
export const WHITE_SPACE_CLASS = '\\t-\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000';
/** Rust's Unicode `\w`. Class contents, no brackets. */
export const WORD_CLASS = '\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}';
const DIGIT_CLASS = '\\p{Nd}';

const W = `[${WORD_CLASS}]`;
const WORD_BOUNDARY = `(?:(?<=${W})(?!${W})|(?<!${W})(?=${W}))`;
const NOT_WORD_BOUNDARY = `(?:(?<=${W})(?=${W})|(?<!${W})(?!${W}))`;
const TEXT_START = '(?<![\\s\\S])';
const TEXT_END = '(?![\\s\\S])';
const LINE_START = '(?<![^\\n])';
const LINE_END = '(?![^\\n])';

export interface TranslatedRegex {
  /** JS source, to be compiled with `flags`. */
  source: string;
  flags: string;
}

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
}

function codePointEscape(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}

function isAsciiAlnum(c: string): boolean {
  return /^[0-9A-Za-z]$/.test(c);
}

/** Escapes valid in both engines for a single character (`\n`, `\t`, …). */
const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\\n',
  t: '\\t',
  r: '\\r',
  f: '\\f',
  v: '\\v',
  a: '\\x07',
};

/** A piece of a character class: either literal class syntax, or a negated set (\D \W \S). */
type ClassPiece = { kind: 'text'; text: string } | { kind: 'negated'; contents: string };

/**
 * Translate one Rust pattern. Throws RegexTranslationError for syntax we refuse; the caller should
 * still compile the result (JS may refuse something Rust would refuse too, e.g. an unbalanced group).
 */
export function translateRustRegex(pattern: string): TranslatedRegex {
  const flags: Flags = { i: false, m: false, s: false };
  const chars = Array.from(pattern); // code points
  let pos = 0;

  // 1. Leading flag groups, e.g. (?i) (?m) (?is).
  for (;;) {
    const rest = chars.slice(pos).join('');
    const m = /^\(\?([a-zA-Z]+)\)/.exec(rest);
    if (!m) break;
    const letters = m[1] ?? '';
    for (const l of letters) {
      if (l === 'i' || l === 'm' || l === 's') flags[l] = true;
      else throw new RegexTranslationError(pattern, `flag "${l}" is not supported (only leading (?i), (?m), (?s))`);
    }
    pos += Array.from(m[0]).length;
  }

  const fail = (reason: string): never => {
    throw new RegexTranslationError(pattern, reason);
  };

  const peek = (k = 0): string | undefined => chars[pos + k];

  /** Read `{…}` after \x / \u / \p; returns the inner text and advances past `}`. */
  const readBraced = (): string => {
    if (peek() !== '{') fail('expected "{"');
    const close = chars.indexOf('}', pos);
    if (close < 0) fail('unclosed "{"');
    const inner = chars.slice(pos + 1, close).join('');
    pos = close + 1;
    return inner;
  };

  const readHex = (n: number): string => {
    const s = chars.slice(pos, pos + n).join('');
    if (s.length !== n || !/^[0-9a-fA-F]+$/.test(s)) fail(`expected ${n} hex digits`);
    pos += n;
    return s;
  };

  const hexToEscape = (hex: string): string => {
    if (!/^[0-9a-fA-F]{1,8}$/.test(hex)) fail(`invalid hex escape "${hex}"`);
    const cp = parseInt(hex, 16);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) fail(`invalid code point U+${hex}`);
    return codePointEscape(cp);
  };

  const propertyEscape = (negated: boolean): string => {
    // after \p or \P
    let name: string;
    if (peek() === '{') name = readBraced().trim();
    else {
      const c = peek();
      if (c === undefined || !/^[A-Za-z]$/.test(c)) fail('invalid \\p escape');
      name = c as string;
      pos += 1;
    }
    const letter = negated ? 'P' : 'p';
    const candidates = [name, name.replace(/\s+/g, '_'), `Script_Extensions=${name}`];
    const neg = name.startsWith('^');
    if (neg) {
      return propertyEscapeFromName(name.slice(1), !negated);
    }
    for (const cand of candidates) {
      try {
        new RegExp(`\\${letter}{${cand}}`, 'u');
        return `\\${letter}{${cand}}`;
      } catch {
        // try next spelling
      }
    }
    return fail(`unknown Unicode property "${name}"`);
  };

  const propertyEscapeFromName = (name: string, negated: boolean): string => {
    const letter = negated ? 'P' : 'p';
    for (const cand of [name, `Script_Extensions=${name}`]) {
      try {
        new RegExp(`\\${letter}{${cand}}`, 'u');
        return `\\${letter}{${cand}}`;
      } catch {
        // try next spelling
      }
    }
    return fail(`unknown Unicode property "${name}"`);
  };

  /**
   * An escape shared by classes and the top level: hex/unicode escapes, properties, simple escapes,
   * escaped punctuation. Returns null for the letter classes and assertions handled by the caller.
   */
  const commonEscape = (c: string): string | null => {
    switch (c) {
      case 'x':
        if (peek() === '{') return hexToEscape(readBraced());
        return hexToEscape(readHex(2));
      case 'u':
        if (peek() === '{') return hexToEscape(readBraced());
        return hexToEscape(readHex(4));
      case 'U':
        if (peek() === '{') return hexToEscape(readBraced());
        return hexToEscape(readHex(8));
      case 'p':
        return propertyEscape(false);
      case 'P':
        return propertyEscape(true);
      default:
        break;
    }
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined) return simple;
    if (!isAsciiAlnum(c)) {
      // Rust accepts escaping any punctuation/space; JS `u` mode only a few: use a code-point escape.
      return codePointEscape(c.codePointAt(0) ?? 0);
    }
    return null;
  };

  const parseClass = (): string => {
    // pos is just after '['
    let negated = false;
    if (peek() === '^') {
      negated = true;
      pos += 1;
    }
    const pieces: ClassPiece[] = [];
    let first = true;
    for (;;) {
      const c = peek();
      if (c === undefined) fail('unclosed character class');
      pos += 1;
      if (c === ']' && !first) break;
      if (c === ']' && first) {
        pieces.push({ kind: 'text', text: '\\]' });
        first = false;
        continue;
      }
      first = false;
      if (c === '[') fail('nested character classes and POSIX classes are not supported');
      if ((c === '&' && peek() === '&') || (c === '-' && peek() === '-') || (c === '~' && peek() === '~')) {
        fail('character class set operations (&&, --, ~~) are not supported');
      }
      if (c === '\\') {
        const e = peek();
        if (e === undefined) fail('trailing backslash');
        pos += 1;
        switch (e) {
          case 'd':
            pieces.push({ kind: 'text', text: DIGIT_CLASS });
            continue;
          case 'D':
            pieces.push({ kind: 'text', text: '\\P{Nd}' });
            continue;
          case 'w':
            pieces.push({ kind: 'text', text: WORD_CLASS });
            continue;
          case 'W':
            pieces.push({ kind: 'negated', contents: WORD_CLASS });
            continue;
          case 's':
            pieces.push({ kind: 'text', text: WHITE_SPACE_CLASS });
            continue;
          case 'S':
            pieces.push({ kind: 'negated', contents: WHITE_SPACE_CLASS });
            continue;
          default: {
            const t = commonEscape(e as string);
            if (t === null) fail(`escape \\${e} is not supported in a class`);
            pieces.push({ kind: 'text', text: t as string });
            continue;
          }
        }
      }
      if (c === '-' || isAsciiAlnum(c as string) || (c as string).codePointAt(0)! > 0x7f) {
        pieces.push({ kind: 'text', text: c as string });
      } else {
        // Any other ASCII punctuation/space: literal inside a Rust class; escape it for JS.
        pieces.push({ kind: 'text', text: codePointEscape((c as string).codePointAt(0) ?? 0) });
      }
    }
    const text = pieces
      .filter((p): p is { kind: 'text'; text: string } => p.kind === 'text')
      .map((p) => p.text)
      .join('');
    const negSets = pieces.filter((p): p is { kind: 'negated'; contents: string } => p.kind === 'negated');
    if (negSets.length === 0) return `[${negated ? '^' : ''}${text}]`;
    if (!negated) {
      const alts = [...(text ? [`[${text}]`] : []), ...negSets.map((n) => `[^${n.contents}]`)];
      return `(?:${alts.join('|')})`;
    }
    // [^ A ¬S1 ¬S2] = not in A, and in S1 and in S2
    const guards = [...(text ? [`(?![${text}])`] : []), ...negSets.map((n) => `(?![^${n.contents}])`)];
    return `(?:${guards.join('')}[\\s\\S])`;
  };

  let out = '';
  let depth = 0;
  while (pos < chars.length) {
    const c = chars[pos] as string;
    pos += 1;
    switch (c) {
      case '\\': {
        const e = peek();
        if (e === undefined) fail('trailing backslash');
        pos += 1;
        switch (e) {
          case 'd':
            out += `[${DIGIT_CLASS}]`;
            break;
          case 'D':
            out += '\\P{Nd}';
            break;
          case 'w':
            out += W;
            break;
          case 'W':
            out += `[^${WORD_CLASS}]`;
            break;
          case 's':
            out += `[${WHITE_SPACE_CLASS}]`;
            break;
          case 'S':
            out += `[^${WHITE_SPACE_CLASS}]`;
            break;
          case 'b':
            if (peek() === '{') fail('\\b{…} word assertions are not supported');
            out += WORD_BOUNDARY;
            break;
          case 'B':
            out += NOT_WORD_BOUNDARY;
            break;
          case 'A':
            out += TEXT_START;
            break;
          case 'z':
            out += TEXT_END;
            break;
          default: {
            const t = commonEscape(e as string);
            if (t === null) fail(`escape \\${e} is not supported`);
            out += t;
          }
        }
        break;
      }
      case '.':
        out += flags.s ? '[\\s\\S]' : '[^\\n]';
        break;
      case '^':
        out += flags.m ? LINE_START : TEXT_START;
        break;
      case '$':
        out += flags.m ? LINE_END : TEXT_END;
        break;
      case '[':
        out += parseClass();
        break;
      case '(': {
        if (peek() === '?') {
          const rest = chars.slice(pos).join('');
          if (rest.startsWith('?:')) {
            out += '(?:';
            pos += 2;
          } else {
            const named = /^\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
            if (named) {
              out += `(?<${named[1]}>`;
              pos += Array.from(named[0]).length;
            } else {
              fail('only (?:…) and named groups are supported; flags must lead the pattern');
            }
          }
        } else {
          out += '(';
        }
        depth += 1;
        break;
      }
      case ')':
        if (depth === 0) fail('unbalanced ")"');
        depth -= 1;
        out += ')';
        break;
      case '{': {
        const rest = chars.slice(pos).join('');
        const m = /^\s*(\d+)\s*(?:(,)\s*(\d*)\s*)?\}/.exec(rest);
        if (!m) fail('"{" must start a repetition like {2} or {1,3}');
        const mm = m as RegExpExecArray;
        out += `{${mm[1]}${mm[2] ?? ''}${mm[3] ?? ''}}`;
        pos += Array.from(mm[0]).length;
        break;
      }
      case '}':
      case ']':
        out += `\\${c}`;
        break;
      case '/':
        out += '\\/';
        break;
      default:
        out += c;
    }
  }
  if (depth !== 0) fail('unclosed group');
  return { source: out, flags: flags.i ? 'iu' : 'u' };
}

/** Translate and compile; errors (ours or V8's) become RegexTranslationError. */
export function compileRustRegex(pattern: string): RegExp {
  const t = translateRustRegex(pattern);
  try {
    return new RegExp(t.source, t.flags);
  } catch (e) {
    throw new RegexTranslationError(pattern, (e as Error).message);
  }
}

/** Rust `str::lines()`: split on \n, drop one \r before each \n, no empty line after a final \n. */
export function rustLines(text: string): string[] {
  if (text === '') return [];
  const parts = text.split('\n');
  const last = parts.length - 1;
  // Every part but the last was followed by \n; a final \n adds no empty line.
  if (parts[last] === '') parts.pop();
  return parts.map((l, k) => (k < last && l.endsWith('\r') ? l.slice(0, -1) : l));
}
