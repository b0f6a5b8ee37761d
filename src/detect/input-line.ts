// Whether a screen no manifest reads waits at an input line, for the quiet rule
// (docs/state-rules.md): the main screen, not a full-screen program's, with text before the
// cursor on its row — a prompt (`>>> `, `$ `, `myrepl> `), maybe with what was typed after it.
// Pure: a snapshot in, a prompt (or why there is none) out.

import type { ScreenSnapshot } from '../types.js';
import { wcwidth } from '../mirror/wcwidth.js';
import { isBlank, trimWs } from './text.js';

export interface InputLine {
  /** The text before the cursor on its row, trimmed (its last 40 characters), or null. */
  prompt: string | null;
  /** Why the cursor's row is or is not an input line, in words for `explain`. */
  why: string;
}

/** Characters of a prompt kept for `explain`. */
const PROMPT_SHOWN = 40;

/** The part of a row (as the mirror builds it: a wide character is one string character for two cells) left of cell `x`. */
export function cellsBefore(row: string, x: number): string {
  let cells = 0;
  let out = '';
  for (const ch of row) {
    const w = wcwidth(ch.codePointAt(0)!);
    if (cells + w > x) break;
    cells += w;
    out += ch;
  }
  return out;
}

export function inputLine(s: ScreenSnapshot): InputLine {
  if (s.altScreen) return { prompt: null, why: 'it is a full-screen program (the alternate screen), where no line tells input' };
  const row = s.rows[s.cursor.y] ?? '';
  const before = cellsBefore(row, s.cursor.x);
  if (isBlank(before)) {
    return { prompt: null, why: isBlank(row) ? 'the cursor is on an empty line, after no prompt' : 'the cursor is at the start of its line, after no prompt' };
  }
  const text = trimWs(before);
  const shown = [...text];
  return {
    prompt: shown.length > PROMPT_SHOWN ? '…' + shown.slice(-PROMPT_SHOWN).join('') : text,
    why: 'the cursor is after text on its line (a prompt)',
  };
}
