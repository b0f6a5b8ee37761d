// Manifest file → validated, compiled manifest (docs/manifest-format.md, "Validation").
//
// Strict: unknown keys anywhere are errors, TOML integers and floats are told apart, and every
// limit is checked. A file either loads whole or is rejected with a list of reasons.

import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import type { EngineState } from '../types.js';
import { compileRustRegex, RegexTranslationError } from './regex.js';
import { parseRegion, regionName, type RegionSpec } from './regions.js';
import { ENGINE_VERSION, parseVersion } from './version.js';

export const LIMITS = {
  rules: 128,
  depth: 8,
  gates: 512,
  matchersPerGate: 32,
  matchers: 1024,
  matcherLength: 512,
} as const;

// ---------- raw (as written) ----------

export interface RawGate {
  contains?: string[] | undefined;
  regex?: string[] | undefined;
  line_regex?: string[] | undefined;
  all?: RawGate[] | undefined;
  any?: RawGate[] | undefined;
  not?: RawGate[] | undefined;
}

export interface RawRule extends RawGate {
  id: string;
  state?: EngineState | undefined;
  priority: number;
  region: string;
  visible_idle: boolean;
  visible_blocker: boolean;
  visible_working: boolean;
  skip_state_update: boolean;
}

export interface RawManifest {
  id: string;
  version?: string | undefined;
  min_engine_version?: number | undefined;
  updated_at?: string | undefined;
  aliases: string[];
  rules: RawRule[];
}

const I32_MIN = -(2n ** 31n);
const I32_MAX = 2n ** 31n - 1n;
const U64_MAX = 2n ** 64n - 1n;

const gateShape = {
  contains: z.array(z.string()).optional(),
  regex: z.array(z.string()).optional(),
  line_regex: z.array(z.string()).optional(),
  get all(): z.ZodOptional<z.ZodArray<z.ZodType<RawGate>>> {
    return z.array(GateSchema).optional();
  },
  get any(): z.ZodOptional<z.ZodArray<z.ZodType<RawGate>>> {
    return z.array(GateSchema).optional();
  },
  get not(): z.ZodOptional<z.ZodArray<z.ZodType<RawGate>>> {
    return z.array(GateSchema).optional();
  },
};

const GateSchema: z.ZodType<RawGate> = z.strictObject(gateShape);

const RuleSchema = z.strictObject({
  ...gateShape,
  id: z.string(),
  state: z.enum(['idle', 'working', 'blocked', 'unknown']).optional(),
  priority: z
    .bigint({ error: 'expected a whole number' })
    .min(I32_MIN, { error: 'must fit a 32-bit signed integer' })
    .max(I32_MAX, { error: 'must fit a 32-bit signed integer' })
    .transform((v) => Number(v))
    .default(0),
  region: z.string().default('whole_recent'),
  visible_idle: z.boolean().default(false),
  visible_blocker: z.boolean().default(false),
  visible_working: z.boolean().default(false),
  skip_state_update: z.boolean().default(false),
});

const ManifestSchema = z.strictObject({
  id: z.string(),
  version: z
    .string()
    .refine((v) => parseVersion(v) !== null, { error: 'must be dotted numbers like "2026.08.21.1"' })
    .transform((v) => v.trim())
    .optional(),
  min_engine_version: z
    .bigint({ error: 'expected a whole number' })
    .min(0n, { error: 'must not be negative' })
    .max(U64_MAX, { error: 'too large' })
    .transform((v) => (v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v)))
    .optional(),
  updated_at: z.string().optional(),
  aliases: z.array(z.string()).default([]),
  rules: z.array(RuleSchema).default([]),
});

// ---------- compiled ----------

export interface CompiledGate {
  /** Needles already lower-cased. */
  contains: string[];
  regex: RegExp[];
  lineRegex: RegExp[];
  all: CompiledGate[];
  any: CompiledGate[];
  not: CompiledGate[];
}

export interface CompiledRule {
  /** Position in the file (0-based). */
  index: number;
  id: string;
  /** `unknown` when the file gave no state. */
  state: EngineState;
  priority: number;
  region: RegionSpec;
  regionName: string;
  visibleIdle: boolean;
  visibleBlocker: boolean;
  visibleWorking: boolean;
  skipStateUpdate: boolean;
  gate: CompiledGate;
  /** The rule as written (for explain output). */
  raw: RawRule;
}

export interface Manifest {
  id: string;
  version: string | null;
  versionParts: bigint[] | null;
  minEngineVersion: number | null;
  updatedAt: string | null;
  aliases: string[];
  rules: CompiledRule[];
  /** Whether any rule produces idle (agents without one reach idle only by the fallback). */
  hasIdleRules: boolean;
}

export type ParseResult = { ok: true; manifest: Manifest } | { ok: false; errors: string[] };

function issuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out || '(top level)';
}

function describeType(v: unknown): string {
  if (typeof v === 'bigint') return 'integer';
  if (typeof v === 'number') return 'float';
  if (Array.isArray(v)) return 'array';
  if (v instanceof Date) return 'datetime';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'table' : typeof v;
}

/** Parse, validate and compile one manifest file's text. */
export function parseManifest(text: string): ParseResult {
  let doc: unknown;
  try {
    doc = parseToml(text, { integersAsBigInt: true });
  } catch (e) {
    return { ok: false, errors: [`TOML syntax error: ${(e as Error).message.split('\n')[0]}`] };
  }
  const parsed = ManifestSchema.safeParse(doc);
  if (!parsed.success) {
    const errors = parsed.error.issues.slice(0, 20).map((i) => {
      let msg = i.message;
      if (i.code === 'invalid_type') {
        let v: unknown = doc;
        for (const k of i.path) v = v === undefined || v === null ? undefined : (v as Record<PropertyKey, unknown>)[k];
        msg = `expected ${i.expected}, got ${v === undefined ? 'nothing' : describeType(v)}`;
      }
      return `${issuePath(i.path)}: ${msg}`;
    });
    return { ok: false, errors };
  }
  return validateAndCompile(parsed.data as RawManifest);
}

/** Structure checks + regex compilation on an already type-checked manifest. */
export function validateAndCompile(m: RawManifest): ParseResult {
  const errors: string[] = [];
  if (m.rules.length === 0) errors.push('rules: a manifest needs at least one [[rules]] entry');
  if (m.rules.length > LIMITS.rules) errors.push(`rules: ${m.rules.length} rules, at most ${LIMITS.rules} allowed`);

  let gateCount = 0;
  let matcherCount = 0;

  const compileGate = (g: RawGate, path: string, depth: number, positive: boolean): CompiledGate => {
    gateCount += 1;
    if (depth > LIMITS.depth) errors.push(`${path}: gates nested deeper than ${LIMITS.depth} levels`);
    const contains = g.contains ?? [];
    const regex = g.regex ?? [];
    const lineRegex = g.line_regex ?? [];
    const all = g.all ?? [];
    const any = g.any ?? [];
    const not = g.not ?? [];
    const direct = contains.length + regex.length + lineRegex.length;
    matcherCount += direct;
    if (direct > LIMITS.matchersPerGate) {
      errors.push(`${path}: ${direct} matchers in one gate, at most ${LIMITS.matchersPerGate} allowed`);
    }
    const hasPositive = direct > 0 || all.length > 0 || any.length > 0;
    if (positive && !hasPositive) {
      errors.push(`${path}: needs at least one of contains, regex, line_regex, all, any`);
    } else if (!positive && !hasPositive && not.length === 0) {
      errors.push(`${path}: an empty gate inside "not"`);
    }
    for (const s of [...contains, ...regex, ...lineRegex]) {
      if (Array.from(s).length > LIMITS.matcherLength) {
        errors.push(`${path}: a matcher longer than ${LIMITS.matcherLength} characters`);
      }
    }
    const compile = (list: string[], key: string): RegExp[] =>
      list.flatMap((p, k) => {
        try {
          return [compileRustRegex(p)];
        } catch (e) {
          const reason = e instanceof RegexTranslationError ? e.reason : (e as Error).message;
          errors.push(`${path}.${key}[${k}]: invalid regex ${JSON.stringify(p)}: ${reason}`);
          return [];
        }
      });
    return {
      contains: contains.map((s) => s.toLowerCase()),
      regex: compile(regex, 'regex'),
      lineRegex: compile(lineRegex, 'line_regex'),
      all: all.map((c, k) => compileGate(c, `${path}.all[${k}]`, depth + 1, true)),
      any: any.map((c, k) => compileGate(c, `${path}.any[${k}]`, depth + 1, true)),
      not: not.map((c, k) => compileGate(c, `${path}.not[${k}]`, depth + 1, false)),
    };
  };

  const rules: CompiledRule[] = m.rules.map((r, index) => {
    const path = `rules[${index}] (${JSON.stringify(r.id)})`;
    if (r.id.trim() === '') errors.push(`rules[${index}]: id must not be blank`);
    if (r.skip_state_update) {
      if (r.state !== 'unknown') errors.push(`${path}: skip_state_update needs state = "unknown" written explicitly`);
      if (r.visible_idle || r.visible_blocker || r.visible_working) {
        errors.push(`${path}: skip_state_update cannot be combined with a visible_* flag`);
      }
    }
    let region = parseRegion(r.region);
    if (typeof region === 'string') {
      errors.push(`${path}: ${region}`);
      region = { kind: 'whole_recent' };
    } else if (
      region.kind === 'top_non_empty_lines' &&
      m.min_engine_version !== undefined &&
      m.min_engine_version < 3
    ) {
      errors.push(`${path}: top_non_empty_lines needs min_engine_version = 3 or more`);
    }
    const gate = compileGate(r, path, 0, true);
    return {
      index,
      id: r.id,
      state: r.state ?? 'unknown',
      priority: r.priority,
      region,
      regionName: regionName(region),
      visibleIdle: r.visible_idle,
      visibleBlocker: r.visible_blocker,
      visibleWorking: r.visible_working,
      skipStateUpdate: r.skip_state_update,
      gate,
      raw: r,
    };
  });

  if (gateCount > LIMITS.gates) errors.push(`${gateCount} gates in the file, at most ${LIMITS.gates} allowed`);
  if (matcherCount > LIMITS.matchers) {
    errors.push(`${matcherCount} matchers in the file, at most ${LIMITS.matchers} allowed`);
  }
  if (errors.length > 0) return { ok: false, errors: [...new Set(errors)] };
  return {
    ok: true,
    manifest: {
      id: m.id,
      version: m.version ?? null,
      versionParts: m.version === undefined ? null : parseVersion(m.version),
      minEngineVersion: m.min_engine_version ?? null,
      updatedAt: m.updated_at ?? null,
      aliases: m.aliases,
      rules,
      hasIdleRules: rules.some((r) => r.state === 'idle'),
    },
  };
}

/**
 * Publisher-side lint (stricter than loading; warnings only): version and min_engine_version present,
 * min_engine_version within this engine, canonical region counts.
 */
export function lintManifest(m: Manifest): string[] {
  const w: string[] = [];
  if (m.version === null) w.push('version is missing');
  if (m.minEngineVersion === null) w.push('min_engine_version is missing');
  else if (m.minEngineVersion > ENGINE_VERSION) {
    w.push(`min_engine_version ${m.minEngineVersion} is newer than this engine (${ENGINE_VERSION})`);
  }
  for (const r of m.rules) {
    const written = r.raw.region;
    if ('count' in r.region && written !== r.regionName) {
      w.push(`rule ${JSON.stringify(r.id)}: write the region as ${r.regionName} (found ${JSON.stringify(written)})`);
    }
    if ('count' in r.region && r.region.count === 0) w.push(`rule ${JSON.stringify(r.id)}: a count of 0 gives an empty region`);
  }
  return w;
}
