// Formats that show, by tmux alone, whether a supervisor watches: the lights and the summary carry
// both of their looks, and tmux picks one each time it draws the status line. A supervisor that
// crashed or was stopped cannot say so itself; tmux knows whether its control client is attached.

import { command } from './quote.js';

/**
 * True (`1`) while a client is attached to `session` (nerdr's hidden session, where only the
 * supervisor's control client stays: the session's client-attached hook sends a user's client on),
 * else `0`. tmux 3.2 has no client loop (`#{L:}` is 3.5), so this loops over the sessions, naming
 * the attached ones between colons, which no session name holds. What it costs is in docs/tmux.md.
 */
export function attachedCheck(session: string): string {
  return `#{m:*:${session}:*,#{S:#{?session_attached,:#{session_name}:,}}}`;
}

/** Where `format` ends when it starts with `#{`: tmux's own rule (format_skip), pairs like `#,` skipped. */
function formatEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    if (text[i] === '#' && text[i + 1] === '{') depth++;
    if (text[i] === '#' && i + 1 < text.length && ',#{}:'.includes(text[i + 1]!)) {
      i++;
      continue;
    }
    if (text[i] === '}' && --depth === 0) return i + 1;
  }
  return text.length;
}

/**
 * A format made fit to be one branch of `#{?…,…,…}`: a bare `,` would end the branch (even
 * inside `#[…]`) and a bare `}` the whole conditional, so they become `#,` and `#}`, which tmux
 * expands back to themselves. Nested `#{…}` and escapes already there stay as they are.
 */
export function formatBranch(format: string): string {
  let out = '';
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    const next = format[i + 1];
    if (c === '#' && next === '{') {
      const end = formatEnd(format, i);
      out += format.slice(i, end);
      i = end - 1;
    } else if (c === '#' && next !== undefined && ',#}:'.includes(next)) {
      out += c + next;
      i++;
    } else if (c === ',' || c === '}') out += '#' + c;
    else out += c;
  }
  return out;
}

/** `live` while `check` holds, else `offline`, decided by tmux each time it expands the format. */
export function whenAttached(check: string, live: string, offline: string): string {
  return `#{?${check},${formatBranch(live)},${formatBranch(offline)}}`;
}

/**
 * The hook that makes tmux redraw every status line when a client leaves `session`: a
 * set-option repaints every client, and nothing else would repaint them before the next
 * status-interval (15 s by default), so the lights would go on looking watched until then.
 */
export function detachRedrawHook(session: string): string {
  // index 0 only: a hook set without an index replaces the whole array, and index 1 respawns a
  // dead supervisor (src/supervisor/holder.ts)
  return command('set-hook', '-t', `=${session}:`, 'client-detached[0]', 'set-option -g @nerdr_detached 1');
}
