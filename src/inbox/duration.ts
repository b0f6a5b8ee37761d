// A duration as people type it: `15m`, `2h`, `30s`, `1d`, or plain seconds (`nerdr inbox snooze`, the dashboard's Z).

/** Milliseconds, or null when the text is no duration. */
export function parseDuration(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*(s|m|h|d)?$/i.exec(text.trim());
  if (!m) return null;
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 's').toLowerCase() as 's' | 'm' | 'h' | 'd'];
  return Math.round(Number(m[1]) * unit);
}
