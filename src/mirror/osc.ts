// Streaming scanner for the OSC inputs of detection (docs/mirror.md): the last
// OSC 0/2 title and the last OSC 9 payload a pane's program sent. It only reads the bytes;
// the same bytes go to the terminal emulator untouched.
//
// Why not xterm's registerOscHandler: xterm hands over an already decoded string, so it
// silently drops invalid UTF-8 (the spec wants U+FFFD), calls the handler for an OSC
// without `;` (the spec ignores those) and keeps bodies up to 10 MB.

/** Longest OSC body kept, in bytes; a longer one is discarded whole. */
export const OSC_MAX_BODY = 4096;
/** Titles and progress payloads are cut to this many characters. */
export const OSC_MAX_CHARS = 256;

const BEL = 0x07;
const ESC = 0x1b;
const CAN = 0x18;
const SUB = 0x1a;
const RBRACKET = 0x5d;
const BACKSLASH = 0x5c;
const SEMI = 0x3b;

const enum S {
  Ground = 0,
  Esc = 1, // saw ESC outside an OSC
  Osc = 2, // collecting an OSC body
  OscEsc = 3, // saw ESC inside an OSC body
}

const decoder = new TextDecoder('utf-8', { fatal: false });

/**
 * Sanitise an OSC payload: invalid UTF-8 → U+FFFD, control characters (Cc) removed, cut to
 * the first 256 characters (code points), not trimmed.
 */
export function sanitizeOscText(bytes: Uint8Array): string {
  const s = decoder.decode(bytes);
  let out = '';
  let n = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) continue;
    out += ch;
    if (++n >= OSC_MAX_CHARS) break;
  }
  return out;
}

export class OscScanner {
  /** Last OSC 0/2 title ("" when none, or when the last one was empty). */
  title = '';
  /** Text after `9;` of the last OSC 9 ("" when none). */
  progress = '';

  private state: S = S.Ground;
  private body = new Uint8Array(OSC_MAX_BODY);
  private len = 0;
  private overflow = false;

  /** Forget a half-seen sequence (e.g. after a re-seed: the bytes before it were dropped). */
  resetParser(): void {
    this.state = S.Ground;
    this.len = 0;
    this.overflow = false;
  }

  /** Forget the recorded title and progress (e.g. the pane's agent changed). */
  clear(): void {
    this.title = '';
    this.progress = '';
  }

  /** Feed raw pane bytes; chunks may be split anywhere. */
  feed(data: Uint8Array): void {
    const n = data.length;
    let i = 0;
    while (i < n) {
      switch (this.state) {
        case S.Ground: {
          // Hot path: native search for ESC, nothing else is looked at.
          const j = data.indexOf(ESC, i);
          if (j < 0) return;
          this.state = S.Esc;
          i = j + 1;
          break;
        }
        case S.Esc: {
          const b = data[i]!;
          if (b === RBRACKET) {
            this.state = S.Osc;
            this.len = 0;
            this.overflow = false;
            i++;
          } else if (b === ESC) {
            i++; // ESC ESC: still "after ESC"
          } else {
            this.state = S.Ground;
            i++;
          }
          break;
        }
        case S.Osc: {
          for (; i < n; i++) {
            const b = data[i]!;
            if (b === BEL) {
              this.finish();
              this.state = S.Ground;
              i++;
              break;
            }
            if (b === ESC) {
              this.state = S.OscEsc;
              i++;
              break;
            }
            if (b === CAN || b === SUB) {
              this.state = S.Ground; // cancelled
              i++;
              break;
            }
            if (this.len < OSC_MAX_BODY) this.body[this.len++] = b;
            else this.overflow = true;
          }
          break;
        }
        case S.OscEsc: {
          // ESC \ is ST. Any other ESC also ends the string (as in xterm and vte); the byte
          // after it then starts a new escape sequence.
          this.finish();
          const b = data[i]!;
          if (b === BACKSLASH) {
            this.state = S.Ground;
            i++;
          } else {
            this.state = S.Esc; // re-examine b as the byte after ESC
          }
          break;
        }
      }
    }
  }

  private finish(): void {
    if (this.overflow) return;
    const body = this.body.subarray(0, this.len);
    const semi = body.indexOf(SEMI);
    if (semi < 0) return; // an OSC without `;` is ignored
    // Ident: the bytes before the first `;`, compared exactly ("0", "2", "9").
    if (semi !== 1) return;
    const id = body[0];
    if (id === 0x30 || id === 0x32) this.title = sanitizeOscText(body.subarray(2));
    else if (id === 0x39) this.progress = sanitizeOscText(body.subarray(2));
  }
}
