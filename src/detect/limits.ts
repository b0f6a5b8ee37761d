// Usage limits: an agent's own words for "you hit your plan's limit", read from its screen or a
// hook's message, and the reset time they name (docs/lifecycle.md). Pure: the time is
// passed in, nothing here throws; a reset it cannot read is null ("unknown reset").
//
// Each agent's wording lives with its integration (`usageLimit`, src/integrations/<agent>.ts);
// this file reads any of them the same way.

/** How an agent says it hit its limit. */
export interface LimitWording {
  /**
   * Patterns for one paragraph of its screen (rows joined with spaces, leading markers such as
   * `⎿` or `■` removed) or a hook's message. A match must start the paragraph. A named group
   * `reset` holds the reset text when the agent gives one ("3pm (Europe/Berlin)", "3:05 PM").
   */
  patterns: readonly RegExp[];
  /** Only the last this many non-blank rows of the screen are read (the newest output, above the prompt). */
  bottomRows: number;
  /**
   * A word, without spaces, that every match of `patterns` and of `dialog.text` contains (Claude's
   * "limit" or "credits"): a screen with no row holding it is not read further. Paragraphs join rows with a
   * space, so such a word in a paragraph is always within one row. Evaluation reads the limit
   * on every screen change; this keeps that to one search a row (docs/performance.md).
   */
  cue: RegExp;
  /**
   * The agent's own dialog about its limit (Claude's "What do you want to do? ❯ 1. Stop and wait
   * for limit to reset"), matched against the screen's text: while the limit lasts it is part of
   * it (limited, not blocked); once the limit resets, `dismissKeys` close it before "resume"
   * types its message.
   */
  dialog?: { text: RegExp; dismissKeys: readonly string[] };
}

/** Whether a row holds the wording's cue: without one the screen shows no limit, nor the dialog about one. */
function cueOnScreen(wording: LimitWording, rows: readonly string[]): boolean {
  return rows.some((r) => wording.cue.test(r));
}

/** Whether the screen shows the agent's own limit dialog. */
export function limitDialogShown(wording: LimitWording, rows: readonly string[]): boolean {
  return wording.dialog !== undefined && cueOnScreen(wording, rows) && wording.dialog.text.test(rows.join('\n'));
}

/** A limit the agent shows. `key` tells a new sighting from the same one seen again. */
export interface LimitSighting {
  /** The agent's words (one paragraph, without control characters). */
  words: string;
  /** Epoch ms at which the limit resets, or null when the agent gave none or nerdr cannot read it. */
  resetAt: number | null;
  /** The reset as the agent wrote it, or null. */
  resetText: string | null;
  /** Same words, same number of them on screen: the same sighting. */
  key: string;
}

/** Characters agents draw before a message: tool-result elbows, error squares, bullets, prompts, box sides. */
const MARKERS = /^[\s⎿■●⏺•│┃▌▎›❯>✗✘⚠×*-]+/u;
/** A row that starts with one of them starts a new paragraph (a prompt's echo, then its error). */
const STARTS = /^[⎿■●⏺•›❯>✗✘⚠×]/u;

/**
 * The paragraphs among the last `bottom` non-blank rows, oldest first: runs of rows, broken at a
 * blank row and at a row that starts with a marker; markers removed, empty ones dropped.
 */
export function paragraphs(rows: readonly string[], bottom: number): string[] {
  const keep: (string | null)[] = [];
  let seen = 0;
  for (let i = rows.length - 1; i >= 0 && seen < bottom; i--) {
    const r = rows[i]!.trim();
    if (r === '') keep.unshift(null);
    else {
      keep.unshift(r);
      seen++;
    }
  }
  const out: string[] = [];
  let cur: string[] = [];
  const flush = (): void => {
    const p = cur.join(' ').replace(/\s+/g, ' ').trim();
    if (p !== '') out.push(p);
    cur = [];
  };
  for (const r of keep) {
    if (r === null) flush();
    else {
      if (STARTS.test(r)) flush();
      cur.push(cur.length === 0 ? r.replace(MARKERS, '') : r.replace(/^[│┃]\s*/u, ''));
    }
  }
  flush();
  return out;
}

/** The limit the text says, if it says one (a hook's message, one paragraph). */
export function readLimitText(wording: LimitWording, text: string, now: number, localZone?: string): Omit<LimitSighting, 'key'> | null {
  const para = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').replace(MARKERS, '').replace(/\s+/g, ' ').trim();
  for (const p of wording.patterns) {
    const m = p.exec(para);
    if (!m || m.index !== 0) continue;
    const resetText = m.groups?.['reset']?.trim() || null;
    return { words: para.slice(0, 300), resetText, resetAt: resetText === null ? null : parseReset(resetText, now, localZone) };
  }
  return null;
}

/** The newest limit on a screen (its last matching paragraph), or null. */
export function readLimitScreen(wording: LimitWording, rows: readonly string[], now: number, localZone?: string): LimitSighting | null {
  if (!cueOnScreen(wording, rows)) return null;
  const paras = paragraphs(rows, wording.bottomRows);
  for (let i = paras.length - 1; i >= 0; i--) {
    const l = readLimitText(wording, paras[i]!, now, localZone);
    if (!l) continue;
    const count = paras.filter((p) => p === paras[i]).length;
    return { ...l, key: `${count}×${l.words}` };
  }
  return null;
}

/**
 * What an evaluation reads of the limit: the newest sighting and whether the agent's dialog about
 * it shows, with the screen searched for the cue once for both (this runs on every screen change).
 */
export function limitOnScreen(wording: LimitWording, rows: readonly string[], now: number, localZone?: string): { limit: LimitSighting | null; dialog: boolean } {
  if (!cueOnScreen(wording, rows)) return { limit: null, dialog: false };
  return { limit: readLimitScreen(wording, rows, now, localZone), dialog: limitDialogShown(wording, rows) };
}

// ---------------------------------------------------------------- reset times

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY_MS = 86_400_000;

/**
 * The reset time an agent wrote, as epoch ms; null when it cannot be read. Understands:
 * - a wall time, in the zone named in parentheses (Claude: "3pm (Europe/Berlin)", "3:30pm (UTC)")
 *   or else in `localZone` (Codex writes its own local time: "3:05 PM"): the next such time
 *   after `now`;
 * - a date before it ("Dec 5, 3pm (UTC)", "Jan 2, 2027, 3pm (UTC)", Codex's "Dec 5th, 2026 3:05 PM");
 *   without a year, the next such date;
 * - a delay ("in 2h 30m", "in 45 minutes", "in 3 days");
 * - an ISO 8601 time with its offset ("2026-12-03T15:00:00Z").
 */
export function parseReset(text: string, now: number, localZone?: string): number | null {
  try {
    return parse(text.trim(), now, localZone);
  } catch {
    return null;
  }
}

function parse(text: string, now: number, localZone: string | undefined): number | null {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(text)) {
    const t = Date.parse(text);
    return Number.isFinite(t) ? t : null;
  }
  const rel = /^in\s+(.+)$/i.exec(text);
  if (rel) return relative(rel[1]!, now);
  const zoneMatch = /\(([^()]+)\)\s*\.?$/.exec(text);
  const zone = zoneMatch ? zoneMatch[1]!.trim() : localZone;
  if (zone !== undefined && !validZone(zone)) return null;
  const body = (zoneMatch ? text.slice(0, zoneMatch.index) : text).replace(/\.\s*$/, '').trim();
  const m = /^(?:([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s*(?:(\d{4}),?\s*)?)?(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?$/i.exec(body);
  if (!m) return null;
  const [, mon, day, year, h, min, ampm] = m;
  let hour = Number(h);
  const minute = min === undefined ? 0 : Number(min);
  if (minute > 59) return null;
  if (ampm) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (/^p/i.test(ampm) ? 12 : 0);
  } else if (hour > 23 || min === undefined) return null; // "15" alone is no time
  const today = wallDate(now, zone);
  if (mon === undefined) {
    let t = zoned(today.y, today.m, today.d, hour, minute, zone);
    if (t === null) return null;
    // the next such time: a reset is never in the past when first read (a minute's leeway)
    if (t < now - 60_000) t = zoned(today.y, today.m, today.d + 1, hour, minute, zone);
    return t;
  }
  const month = MONTHS.indexOf(mon.toLowerCase());
  if (month < 0) return null;
  const d = Number(day);
  if (d < 1 || d > 31) return null;
  if (year !== undefined) return zoned(Number(year), month, d, hour, minute, zone);
  let t = zoned(today.y, month, d, hour, minute, zone);
  if (t !== null && t < now - DAY_MS) t = zoned(today.y + 1, month, d, hour, minute, zone);
  return t;
}

function relative(text: string, now: number): number | null {
  const units: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: DAY_MS };
  let total = 0;
  let any = false;
  const re = /(\d+(?:\.\d+)?)\s*(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)\b/gi;
  let rest = text.replace(/\band\b|,/gi, ' ');
  for (const m of text.matchAll(re)) {
    total += Number(m[1]) * units[m[2]!.toLowerCase()[0]!]!;
    any = true;
    rest = rest.replace(m[0], '');
  }
  if (!any || rest.replace(/\band\b|,|\./gi, '').trim() !== '') return null;
  return now + total;
}

function validZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock date in a zone (the process's own when undefined). */
function wallDate(t: number, zone: string | undefined): { y: number; m: number; d: number } {
  const p = parts(t, zone);
  return { y: p.year, m: p.month - 1, d: p.day };
}

function parts(t: number, zone: string | undefined): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number> {
  const f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  const out: Record<string, number> = {};
  for (const p of f.formatToParts(new Date(t))) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out as Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number>;
}

/** Epoch ms of a wall-clock time in a zone (month 0-based; days past the month's end roll over). */
function zoned(y: number, m: number, d: number, h: number, min: number, zone: string | undefined): number | null {
  const wall = Date.UTC(y, m, d, h, min);
  if (!Number.isFinite(wall)) return null;
  // the zone's offset at that wall time, found in two steps (exact but for the hour a clock skips)
  let t = wall - offset(wall, zone);
  t = wall - offset(t, zone);
  return Number.isFinite(t) ? t : null;
}

function offset(t: number, zone: string | undefined): number {
  const p = parts(t, zone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(t / 1000) * 1000;
}
