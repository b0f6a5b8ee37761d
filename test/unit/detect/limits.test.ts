// Usage limits: each agent's wording and reset format as its shipped code writes them (Claude
// Code 2.1.197's bundle, Codex 0.171.0's binary and source: docs/lifecycle.md), read by
// src/detect/limits.ts. Relative and absolute times, zones, and what cannot be read: never a
// throw, an unknown reset (null).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { limitDialogShown, limitOnScreen, paragraphs, parseReset, readLimitScreen, readLimitText } from '../../../src/detect/limits.js';
import { integrationFor } from '../../../src/integrations/index.js';
import { CLAUDE_USAGE_LIMIT } from '../../../src/integrations/claude.js';
import { CODEX_USAGE_LIMIT } from '../../../src/integrations/codex.js';

/** Thu Dec 3 2026, 18:00 UTC. */
const NOW = Date.UTC(2026, 11, 3, 18, 0);
const utc = (m: number, d: number, h: number, min = 0, y = 2026): number => Date.UTC(y, m, d, h, min);

describe('parseReset', () => {
  it('a time of day in the zone Claude names: the next such time', () => {
    expect(parseReset('8pm (UTC)', NOW)).toBe(utc(11, 3, 20));
    // 3pm is past today: tomorrow's
    expect(parseReset('3pm (UTC)', NOW)).toBe(utc(11, 4, 15));
    // Berlin is UTC+1 in December
    expect(parseReset('8:30pm (Europe/Berlin)', NOW)).toBe(utc(11, 3, 19, 30));
    // Tokyo (UTC+9) is already on Dec 4 at NOW: 9am there is tomorrow 00:00 UTC
    expect(parseReset('9am (Asia/Tokyo)', NOW)).toBe(utc(11, 4, 0));
    expect(parseReset('12am (UTC)', NOW)).toBe(utc(11, 4, 0));
    expect(parseReset('12pm (UTC)', NOW)).toBe(utc(11, 4, 12));
  });

  it("the narrow space newer ICU puts before PM, and Claude's own lower case", () => {
    expect(parseReset('8\u202fPM (UTC)', NOW)).toBe(utc(11, 3, 20));
    expect(parseReset('8 pm (UTC)', NOW)).toBe(utc(11, 3, 20));
  });

  it('a date and time more than a day away, with and without a year', () => {
    expect(parseReset('Dec 5, 3pm (America/New_York)', NOW)).toBe(utc(11, 5, 20));
    expect(parseReset('Dec 5, 3:30pm (UTC)', NOW)).toBe(utc(11, 5, 15, 30));
    expect(parseReset('Jan 2, 2027, 9am (Asia/Tokyo)', NOW)).toBe(utc(0, 2, 0, 0, 2027));
    // no year and the date is behind us: next year's
    expect(parseReset('Jan 2, 9am (UTC)', NOW)).toBe(utc(0, 2, 9, 0, 2027));
  });

  it("Codex's local time, with the date when it is not today", () => {
    expect(parseReset('9:05 PM', NOW, 'UTC')).toBe(utc(11, 3, 21, 5));
    expect(parseReset('Dec 5th, 2026 3:05 PM', NOW, 'America/Los_Angeles')).toBe(utc(11, 5, 23, 5));
    expect(parseReset('Jan 1st, 2027 12:00 AM', NOW, 'UTC')).toBe(utc(0, 1, 0, 0, 2027));
    expect(parseReset('Dec 22nd, 2026 1:15 PM.', NOW, 'UTC')).toBe(utc(11, 22, 13, 15));
  });

  it('a delay, and an ISO time', () => {
    expect(parseReset('in 2h 30m', NOW)).toBe(NOW + 9_000_000);
    expect(parseReset('in 45 minutes', NOW)).toBe(NOW + 2_700_000);
    expect(parseReset('in 3 days', NOW)).toBe(NOW + 3 * 86_400_000);
    expect(parseReset('in 1 hour and 5 minutes', NOW)).toBe(NOW + 3_900_000);
    expect(parseReset('2026-12-03T21:00:00+09:00', NOW)).toBe(utc(11, 3, 12));
  });

  it('what cannot be read is an unknown reset (null), never a throw', () => {
    for (const bad of ['', 'soon', 'later', '3pm (Mars/Olympus)', '25:99', '13pm (UTC)', '0am (UTC)', '15', 'Foo 5, 3pm (UTC)', 'Dec 45, 3pm (UTC)', 'in a while', 'in 5 parsecs', '(UTC)', '3:75 PM', '\u0000\u001b[31m']) {
      expect(() => parseReset(bad, NOW), bad).not.toThrow();
      expect(parseReset(bad, NOW), bad).toBeNull();
    }
  });

  it('a wall time the clock skips (spring forward) still gives a time', () => {
    const t = parseReset('Mar 8, 2027, 2:30am (America/New_York)', NOW);
    expect(t).not.toBeNull();
    expect(Math.abs(t! - Date.UTC(2027, 2, 8, 7, 30))).toBeLessThanOrEqual(3_600_000);
  });
});

describe("Claude Code's wording", () => {
  const read = (text: string) => readLimitText(CLAUDE_USAGE_LIMIT, text, NOW);

  it('You\'ve hit your … limit · resets …', () => {
    expect(read("You've hit your session limit · resets 8pm (UTC)")).toEqual({ words: "You've hit your session limit · resets 8pm (UTC)", resetText: '8pm (UTC)', resetAt: utc(11, 3, 20) });
    expect(read("You've hit your weekly limit · resets Dec 5, 3pm (America/New_York)")?.resetAt).toBe(utc(11, 5, 20));
    expect(read("You've hit your Opus limit · resets 8:30pm (Europe/Berlin) · /upgrade to keep going")?.resetAt).toBe(utc(11, 3, 19, 30));
    expect(read("⎿  You've hit your usage limit · resets 9pm (UTC)")?.resetAt).toBe(utc(11, 3, 21));
  });

  it('limits that name no reset are limits with an unknown reset', () => {
    expect(read("You've hit your org's monthly spend limit · ask your admin to raise it at claude.ai/settings/usage")).toMatchObject({ resetAt: null, resetText: null });
    expect(read("You've hit your usage limit · contact your admin to increase it")).toMatchObject({ resetAt: null });
    expect(read("You're out of usage credits · resets 8pm (UTC)")?.resetAt).toBe(utc(11, 3, 20));
  });

  it('a reset it cannot read: limited, the reset unknown, the words kept', () => {
    expect(read("You've hit your session limit · resets 8pm (Mars/Olympus)")).toMatchObject({ resetAt: null, resetText: '8pm (Mars/Olympus)' });
  });

  it('the wording of earlier releases', () => {
    expect(read('5-hour limit reached ∙ resets 8pm')?.resetAt).not.toBeNull();
    expect(read('Claude usage limit reached. Your limit will reset at 8pm (UTC).')?.resetAt).toBe(utc(11, 3, 20));
  });

  it('not a limit: a warning, the context window, a 429 that is not the plan, an answer quoting it', () => {
    for (const t of [
      "You've used 90% of your session limit · resets 8pm (UTC)",
      'Approaching usage limit · resets 8pm (UTC)',
      'Context limit reached · /compact or /clear to continue',
      'API Error: Request rejected (429) · This request would exceed your rate limit',
      'API Error: Server is temporarily limiting requests (not your usage limit) · Rate limited',
      'Fast limit reached and temporarily disabled · resets in 5m',
      "I see. When you've hit your session limit · resets 8pm (UTC), wait.",
    ]) expect(read(t), t).toBeNull();
  });
});

describe("Codex's wording", () => {
  const read = (text: string) => readLimitText(CODEX_USAGE_LIMIT, text, NOW, 'UTC');

  it("You've hit your usage limit. … Try again at …", () => {
    expect(read("■ You've hit your usage limit. Try again at 9:05 PM.")).toEqual({ words: "You've hit your usage limit. Try again at 9:05 PM.", resetText: '9:05 PM', resetAt: utc(11, 3, 21, 5) });
    expect(read("You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at Dec 5th, 2026 3:05 PM.")?.resetAt).toBe(utc(11, 5, 15, 5));
    expect(read("You've hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 9:05 PM.")?.resetAt).toBe(utc(11, 3, 21, 5));
    expect(read("You've hit your usage limit for gpt-6-sol. Try again at 9:05 PM.")?.resetAt).toBe(utc(11, 3, 21, 5));
  });

  it('no time: "Try again later", or the free plan\'s upgrade', () => {
    expect(read("You've hit your usage limit. Try again later.")).toMatchObject({ resetAt: null, resetText: null });
    expect(read("You've hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus).")).toMatchObject({ resetAt: null });
  });

  it('not a limit', () => {
    expect(read("Heads up, you've used over 90% of your 5h limit.")).toBeNull();
    expect(read('Goal hit usage limits (/goal resume)')).toBeNull();
  });
});

describe('the screen', () => {
  it('rows are read as paragraphs: wrapped lines joined, markers before them removed', () => {
    expect(paragraphs(['› hello', '', "■ You've hit your usage limit. Upgrade to Pro", '  (https://x), or try again at 9:05 PM.', '', '› '], 10)).toEqual([
      'hello',
      "You've hit your usage limit. Upgrade to Pro (https://x), or try again at 9:05 PM.",
      '',
    ].filter((p) => p !== ''));
  });

  it('the newest limit on screen, within the bottom rows; the same one again has the same key', () => {
    const rows = ['> USAGE_LIMIT please', "  ⎿  You've hit your session limit · resets 8pm (UTC)", '', '─────', '> ', '─────', '  ? for shortcuts'];
    const a = readLimitScreen(CLAUDE_USAGE_LIMIT, rows, NOW);
    expect(a?.resetAt).toBe(utc(11, 3, 20));
    // an hour later the same line is the same sighting (the key), though "8pm" is read anew
    expect(readLimitScreen(CLAUDE_USAGE_LIMIT, rows, NOW + 3_600_000)?.key).toBe(a?.key);
    // a second one below it: another sighting
    const twice = [...rows.slice(0, 2), '> continue', "  ⎿  You've hit your session limit · resets 8pm (UTC)", ...rows.slice(2)];
    expect(readLimitScreen(CLAUDE_USAGE_LIMIT, twice, NOW)?.key).not.toBe(a?.key);
    // scrolled above the rows read: not seen
    expect(readLimitScreen(CLAUDE_USAGE_LIMIT, [...rows.slice(0, 2), ...Array.from({ length: 14 }, (_, i) => `line ${i}`)], NOW)).toBeNull();
  });

  it("each wording's cue is a word all its patterns hold, so a screen without it is not read further", () => {
    for (const w of [CLAUDE_USAGE_LIMIT, CODEX_USAGE_LIMIT]) {
      expect(w.cue.source).not.toMatch(/\s/);
      // a pattern added without the cue's word would never be read from a screen
      for (const p of w.patterns) expect(p.source, p.source).toMatch(w.cue);
      // the agent's own dialog about its limit is looked for only where the cue is, too
      if (w.dialog) expect(w.dialog.text.source).toMatch(w.cue);
    }
    // every limit line this file reads holds it in one row, wrapped or not
    const wrapped = ['> go', "  ⎿  You've hit your session", '     limit · resets 8pm (UTC)', '> '];
    expect(readLimitScreen(CLAUDE_USAGE_LIMIT, wrapped, NOW)?.resetAt).toBe(utc(11, 3, 20));
    expect(readLimitScreen(CLAUDE_USAGE_LIMIT, ["  ⎿  You're out of usage credits · resets 8pm (UTC)"], NOW)?.resetAt).toBe(utc(11, 3, 20));
    expect(readLimitScreen(CLAUDE_USAGE_LIMIT, ['> hello', '  ⎿  all good', '> '], NOW)).toBeNull();
    expect(limitOnScreen(CLAUDE_USAGE_LIMIT, ['> hello', '  ⎿  all good', '> '], NOW)).toEqual({ limit: null, dialog: false });
  });
});

describe('captured screens (test/fixtures/screens/index.json): the real agents at their limit', () => {
  const dir = path.join(import.meta.dirname, '../../fixtures/screens');
  interface Entry { agent: string; screen: string; state: string; version: string; limit?: { reset: string; dialog: boolean; sameAs?: string } }
  const entries = (JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8')) as { screens: Entry[] }).screens.filter((e) => e.limit);
  const rows = (screen: string): string[] => readFileSync(path.join(dir, `${screen}.txt`), 'utf8').split('\n');
  /** The captures were taken on Dec 3 2026 between 19:11 and 19:23 UTC, on a machine in UTC. */
  const AT = Date.UTC(2026, 11, 3, 19, 11);

  it('there are captures of Claude Code and Codex', () => {
    expect(new Set(entries.filter((e) => e.state === 'limited').map((e) => e.agent))).toEqual(new Set(['claude', 'codex']));
  });

  for (const e of entries) {
    it(`${e.screen} (${e.agent} ${e.version}): the limit, its reset "${e.limit!.reset}", ${e.limit!.dialog ? 'its dialog about it' : 'no dialog'}`, () => {
      const wording = integrationFor(e.agent)!.usageLimit!;
      const seen = readLimitScreen(wording, rows(e.screen), AT, 'UTC');
      expect(seen?.words).toMatch(/^You['’]ve hit your/);
      expect(seen?.resetText).toBe(e.limit!.reset);
      expect(seen?.resetAt).toBe(parseReset(e.limit!.reset, AT, 'UTC'));
      expect(seen!.resetAt! - AT).toBeGreaterThan(0);
      expect(seen!.resetAt! - AT).toBeLessThan(15 * 60_000);
      expect(limitDialogShown(wording, rows(e.screen))).toBe(e.limit!.dialog);
      // what an evaluation reads: both at once
      expect(limitOnScreen(wording, rows(e.screen), AT, 'UTC')).toEqual({ limit: seen, dialog: e.limit!.dialog });
      // after the resume the old line is still on screen: the same sighting, not a new limit
      if (e.limit!.sameAs) expect(seen?.key).toBe(readLimitScreen(wording, rows(e.limit!.sameAs), AT, 'UTC')?.key);
    });
  }
});
