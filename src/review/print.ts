// `nerdr review --once` without --json: the panel's data as plain lines, for a terminal or a script.

import type { ReviewData } from './data.js';
import { stepPlace } from './layout.js';
import { visible } from '../text.js';

function counts(added: number | null, removed: number | null): string {
  return added === null || removed === null ? 'binary' : `+${added} -${removed}`;
}

export function reviewText(d: ReviewData): string {
  const out: string[] = [];
  const who = d.agent ? `${d.agent.name} (${d.agent.agent}, ${d.agent.state})` : d.window ? `${d.windowName || d.window} (no agent)` : d.windowName;
  out.push(`window  ${d.window ? `${d.window} ` : ''}${visible(who)}`);
  out.push(`folder  ${visible(d.folder)}`);
  if (d.problem) out.push(`        ${visible(d.problem)}`);
  if (d.repo) {
    const ab = d.ahead !== null && d.behind !== null ? `  ahead ${d.ahead}, behind ${d.behind}` : '';
    out.push(`branch  ${visible(d.branch ?? (d.head ? `detached at ${d.head.slice(0, 12)}` : 'no commits yet'))}${d.base ? ` ← ${visible(d.base)}` : ''}${ab}`);
    if (d.files.length === 0) out.push('files   no changes');
    else {
      out.push('files');
      const w = Math.max(...d.files.map((f) => f.kind.length));
      const others = new Map(d.shared.map((s) => [s.path, s.with]));
      for (const f of d.files) {
        const also = others.get(f.path);
        out.push(`  ${f.kind.padEnd(w)}  ${f.status} ${visible(f.from ? `${f.from} → ` : '')}${visible(f.path)}  ${counts(f.added, f.removed)}${also ? `  ⇄ also changed by ${visible(also.join(', '))}` : ''}`);
      }
    }
  }
  if (d.steps.length) {
    out.push('walkthrough');
    d.steps.forEach((s, i) => {
      const place = stepPlace(s, d.folder);
      out.push(`  ${i + 1}. ${place ? `${place}  ` : ''}${visible(s.text.replace(/\s+/g, ' '))}`);
    });
  }
  if (d.why.length) {
    out.push('why');
    for (const n of d.why) out.push(`  - ${visible(n.text.replace(/\s+/g, ' '))}`);
  }
  return out.join('\n') + '\n';
}
