// Which keys answer a dialog, and the id that says it is still the same dialog.
//
// A dialog is answered the way a person does it: the selection moves from the option the agent
// has selected now to the chosen one (↑/↓ in a numbered list, ←/→ in a row of choices), then
// Enter. An agent whose refusal the real-agent suite proved with other keys (DialogSpec.denyKeys)
// is refused with those. Free text goes into an option that takes it (Claude Code's "Type
// something."), typed after the selection moved there.

import { createHash } from 'node:crypto';
import type { AnswerChoice, Dialog, DialogOption } from '../protocol/index.js';
import type { DialogSpec } from './dialog.js';

/**
 * The prompt id: from the window, the time the dialog appeared (the blocked state's start) and
 * the dialog's text and options. The selection moving is the same prompt; another dialog, or the
 * same one shown again later, is another.
 */
export function promptId(windowId: string, since: number, d: Dialog | null, fallback: string): string {
  const what = d ? `${d.text}\0${d.options.map((o) => `${o.n}.${o.label}`).join('\0')}` : fallback;
  return 'p' + createHash('sha256').update(`${windowId}\0${since}\0${what}`).digest('hex').slice(0, 9);
}

/** The dialog's text alone (for `--same`: every prompt showing exactly the same text). */
export function sameText(d: Dialog): string {
  return `${d.text}\0${d.options.map((o) => `${o.n}.${o.label}`).join('\0')}`;
}

export type Keys = { ok: true; option: DialogOption | null; keys: string[] } | { ok: false; message: string };

export function parseChoice(raw: string): AnswerChoice | null {
  const t = raw.trim().toLowerCase();
  if (t === 'approve' || t === 'yes' || t === 'y') return 'approve';
  if (t === 'always') return 'always';
  if (t === 'deny' || t === 'no' || t === 'n' || t === 'reject') return 'deny';
  if (/^[1-9][0-9]?$/.test(t)) return Number(t);
  return null;
}

/** The keys (tmux key names; free text as one literal, marked `literal`) that choose `choice` in `d`. */
export function answerKeys(d: Dialog, choice: AnswerChoice, spec: DialogSpec, text: string | null): Keys {
  const option = typeof choice === 'number' ? d.options.find((o) => o.n === choice) : d.options.find((o) => o.kind === choice);
  const offered = d.options.map((o) => `${o.n}. ${o.label}`).join('; ');
  if (!option) {
    if (choice === 'deny' && spec.denyKeys) return { ok: true, option: null, keys: [...spec.denyKeys] };
    const what = typeof choice === 'number' ? `no option ${choice}` : `no option that reads as "${choice}"`;
    return { ok: false, message: `the dialog has ${what}; it offers: ${offered}` };
  }
  if (text !== null && option.kind !== 'text') return { ok: false, message: `option ${option.n} (${option.label}) takes no text; the options that do: ${d.options.filter((o) => o.kind === 'text').map((o) => o.n).join(', ') || 'none'}` };
  if (text === null && option.kind === 'text') return { ok: false, message: `option ${option.n} (${option.label}) needs the text to type: --text "…"` };
  if (option.kind === 'deny' && spec.denyKeys) return { ok: true, option, keys: [...spec.denyKeys] };
  const to = d.options.indexOf(option);
  const delta = to - d.selected;
  const [back, forward] = d.layout === 'row' ? ['Left', 'Right'] : ['Up', 'Down'];
  const keys: string[] = Array.from({ length: Math.abs(delta) }, () => (delta > 0 ? forward! : back!));
  if (text !== null) keys.push(`literal:${text}`);
  keys.push('Enter');
  return { ok: true, option, keys };
}
