// `nerdr doctor`'s look at [[on]] (docs/on-events.md): the rules in config.toml, and the last
// command that failed (it exited non-zero, timed out, could not start or was dropped), which the
// supervisor keeps in <state>/on-<server>.failures.json.

import type { OnRule } from '../config.js';
import { readFailures } from '../supervisor/on-events-store.js';
import { visible } from '../text.js';

/** A failure older than this is history: shown, but no warning. */
const RECENT_MS = 24 * 3600_000;

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
}

export function onEventsCheck(failuresFile: string, rules: OnRule[], log: string, now = Date.now()): { name: string; ok: boolean; warn?: boolean; detail: string; fix?: string } {
  const name = 'on events';
  const kinds = [...new Set(rules.map((r) => r.event))].join(', ');
  const ruleText = rules.length === 0 ? 'no [[on]] rules' : `${rules.length} rule${rules.length === 1 ? '' : 's'} (${kinds})`;
  const failures = readFailures(failuresFile);
  const last = failures.at(-1);
  if (!last) return { name, ok: true, detail: `${ruleText}; no failure` };
  const line = (f: (typeof failures)[number]) => `${f.event} ${visible(f.name)} (${visible(f.window)}): ${visible(JSON.stringify(f.run))} ${visible(f.why)}, ${ago(now - f.at)} ago`;
  const recent = now - last.at < RECENT_MS;
  return {
    name,
    ok: true,
    ...(recent ? { warn: true } : {}),
    detail: [`${ruleText}; ${failures.length} failure(s) kept, the last:`, ...failures.slice(-3).map(line)].join('\n'),
    fix: `run the command by hand with an event on stdin (docs/on-events.md, "When a command fails"); every run is in ${log}`,
  };
}
