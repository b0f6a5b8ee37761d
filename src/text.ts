// Text that agents, repositories and other hosts wrote never reaches a terminal raw: a file name
// or a note holding ESC ] 52 would set the clipboard, ESC ] 0 the window title, ESC [ 2 J clear
// the screen. Every human-readable output passes such text through `visible` where it is
// formatted, so nerdr's own styling still works and `--json` keeps the exact string
// (docs/architecture.md, "Untrusted text").

/**
 * `text` with each control character (C0, DEL, C1) shown as what it is: `^[` for ESC, `^G` for
 * BEL, `^?` for DEL, `<9b>` for a C1 such as CSI. With `lines`, a line break stays one (for text
 * printed over several lines); tabs never stay, so a table cell keeps its width. With `colour`,
 * SGR sequences (`ESC [ … m`: colours and attributes, nothing else) stay, for a screen shown
 * with its colours (`nerdr read --ansi`, from this host or another): every other sequence shows.
 * The bidirectional controls (U+202A–U+202E, U+2066–U+2069), which reorder what a terminal shows
 * so a name reads as another ("Trojan Source"), show as `<U+202E>`.
 */
export function visible(text: string, opts: { lines?: boolean; colour?: boolean } = {}): string {
  // eslint-disable-next-line no-control-regex
  if (!/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(text)) return text;
  if (opts.colour) {
    // eslint-disable-next-line no-control-regex
    return text.split(/(\x1b\[[0-9;:]*m)/).map((part, i) => (i % 2 === 1 ? part : visible(part, { lines: opts.lines }))).join('');
  }
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    if (c === '\n' && opts.lines) return c;
    const n = c.charCodeAt(0);
    if (n >= 0x2000) return `<U+${n.toString(16).toUpperCase()}>`;
    if (n < 0x20) return '^' + String.fromCharCode(n + 0x40);
    if (n === 0x7f) return '^?';
    return `<${n.toString(16)}>`;
  });
}

/**
 * What another nerdr process (over ssh, or the CLI run as a child) said when it failed: its
 * `nerdr: …` line, else its last line, else its exit status; shown, never obeyed.
 */
export function nerdrSaid(stderr: string, status: number): string {
  const lines = stderr.trim().split('\n').filter((l) => l.trim() !== '');
  const said = lines.find((l) => l.startsWith('nerdr: '))?.slice('nerdr: '.length) ?? lines.at(-1) ?? '';
  return visible(said) || `exit ${status}`;
}
