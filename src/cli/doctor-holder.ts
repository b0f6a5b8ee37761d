// `nerdr doctor`'s check of how the supervisor has been ending: tmux revives it (src/supervisor/
// holder.ts), so a supervisor that crashes is back at once and a user sees nothing; this check is
// where they learn that it crashed, and why, and that a crash loop is being held back.

import { readStarts, SHORT_LIFE_MS, startDelay, type StartRecord } from '../supervisor/holder.js';

export interface RestartsCheck {
  name: string;
  ok: boolean;
  warn?: boolean;
  detail: string;
  fix?: string;
}

const HOUR_MS = 3_600_000;

/** Pure: the check from the start record and the time. */
export function restartsCheckFrom(starts: StartRecord[], now: number, log: string): RestartsCheck {
  const name = 'supervisor restarts';
  const sorted = [...starts].sort((a, b) => a.at - b.at);
  // a start that did not end cleanly and was followed by another: it crashed (a kill -9 writes no end)
  const crashed = sorted.filter((s, i) => !(s.ended?.clean ?? false) && (s.ended !== null || i < sorted.length - 1) && now - s.at <= HOUR_MS);
  // what the newest start had to wait (it is the one running, or waiting, now)
  const newest = sorted[sorted.length - 1];
  const loop = newest && now - newest.at <= HOUR_MS ? startDelay(sorted.slice(0, -1), newest.at) : null;
  // a start that waited out a loop and has run well since ends it
  const over = loop !== null && newest!.ended === null && now - (newest!.ready ?? newest!.at + loop.ms) > SHORT_LIFE_MS;
  if (loop && !over) {
    return {
      name,
      ok: false,
      detail: `${loop.why}; tmux starts it again after a pause (up to a minute)`,
      fix: `see the log: ${log}; run \`nerdr supervise --foreground\` to watch it fail; \`nerdr supervisor stop\` ends the retries`,
    };
  }
  if (crashed.length === 0) return { name, ok: true, detail: 'none in the last hour (tmux revives the supervisor within a second if it dies)' };
  const last = crashed[crashed.length - 1]!;
  const why = last.ended?.why ?? 'killed without a word (kill -9, the OOM killer)';
  return { name, ok: true, warn: true, detail: `${crashed.length} in the last hour, each revived by tmux; the last: ${why}`, fix: `see the log: ${log}` };
}

export function restartsCheck(startsFile: string, log: string, now = Date.now()): RestartsCheck {
  return restartsCheckFrom(readStarts(startsFile), now, log);
}
