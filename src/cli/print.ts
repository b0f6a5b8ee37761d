// Output helpers shared by the read commands.

import { visible } from '../text.js';

/** A time of day as `HH:MM:SS` (local), for lines of streamed steps and changes. */
export function clockTime(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 8);
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** A plain left-aligned table; the last column is not padded. Cells show their control characters (src/text.ts). */
export function table(header: string[], cells: string[][]): string {
  const rows = cells.map((r) => r.map((c) => visible(c)));
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => [...(r[i] ?? '')].length)));
  return (
    all
      .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length))).join('  '))
      .join('\n') + '\n'
  );
}

