// Text from a repository (file names, commit subjects) shown in the terminal: a name may hold
// ESC or a line break (git allows them), which must show as what it is, not act on the terminal
// or forge a line of nerdr's output.

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** `s` with each C0, DEL and C1 character written as `\xNN`. */
export function visible(s: string): string {
  return s.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
