// Quoting for tmux's command parser (the control-mode channel reads tmux.conf syntax).
//
// Single quotes are fully literal, so they are used whenever the value has no control
// characters. A line break cannot appear inside single quotes on a control-mode line (each
// line is one command), so values with bytes below 0x20 or DEL use double quotes, where tmux
// understands \ooo escapes; `\`, `"` and `$` are escaped there because double quotes expand
// variables. Formats (#{…}) are not the parser's business: see escapeFormat.

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

export function quote(value: string): string {
  if (!CONTROL.test(value)) return `'${value.replace(/'/g, `'\\''`)}'`;
  let out = '"';
  for (const ch of value) {
    const c = ch.codePointAt(0)!;
    if (ch === '\\' || ch === '"' || ch === '$') out += '\\' + ch;
    else if (c < 0x20 || c === 0x7f) out += '\\' + c.toString(8).padStart(3, '0');
    else out += ch;
  }
  return out + '"';
}

/** Builds one command for the control channel: every argument quoted. */
export function command(name: string, ...args: (string | number)[]): string {
  return [name, ...args.map((a) => quote(String(a)))].join(' ');
}

/**
 * For arguments that tmux runs through its format expander: `#` → `##`, so `#{…}`, `#(…)` and
 * `#S`-style aliases stay literal. On tmux 3.2a–3.7c these are new-window/new-session -n and -s,
 * the -c folder of new-window, new-session, split-window and respawn-pane (spawn.c expands it),
 * rename-window/rename-session, display -p templates and set-option -F values. -e values and -t
 * targets are not expanded.
 */
export function escapeFormat(value: string): string {
  return value.replace(/#/g, '##');
}

/**
 * For one-shot `tmux` invocations with an argv array: tmux treats an argument that ends in
 * `;` as a command separator (cmd_parse_from_arguments), unless it ends in `\;`.
 */
export function argvSafe(value: string): string {
  return value.endsWith(';') ? value.slice(0, -1) + '\\;' : value;
}
