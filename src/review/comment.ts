// A comment on a line of a diff, for the window's agent: one queued message (`nerdr send`),
// "path:line: comment", with the line it is about and its hunk's header, so the agent finds the
// place even after the file moved on. From the review panel (key c) or `nerdr review comment`.

/** Longest quoted line kept in a comment (a minified file's line is not quoted whole). */
const MAX_QUOTED = 240;

export interface CommentPlace {
  /** The file's path in the repository (as the panel lists it). */
  file: string;
  line: number;
  /** The line's text (without the diff's +/- / space column), or null when unknown. */
  text: string | null;
  /** The hunk's header (`@@ -1,4 +1,5 @@ function parse`), or null. */
  hunk: string | null;
}

export function commentMessage(place: CommentPlace, comment: string): string {
  const out = [`${place.file}:${place.line}: ${comment.trim()}`];
  if (place.hunk) out.push(`  in ${place.hunk.trim()}`);
  if (place.text !== null) {
    const t = place.text.replace(/\s+$/u, '');
    out.push(`  ${place.line} | ${t.length > MAX_QUOTED ? `${t.slice(0, MAX_QUOTED)}…` : t}`);
  }
  return out.join('\n');
}
