// A hook's payload as the agent wrote it (stdin, or an argument for Codex's notify program), made
// into the JSON text nerdr passes on, or the reason it cannot be used. One owner for the rule:
// `nerdr hook` (src/cli/hook-entry.ts) and the spool reader (src/supervisor/spool.ts) both judge
// payloads here. Builtins only: the hook's hot path imports this.

export const MAX_PAYLOAD_BYTES = 1024 * 1024;

export type Dropped = 'too_large' | 'malformed' | 'empty';

export interface Payload {
  /** The payload's JSON text with line breaks turned into spaces, or null. */
  json: string | null;
  dropped?: Dropped;
}

/** A payload judged and parsed once: the object, or why there is none. */
export type ParsedPayload = { value: Record<string, unknown>; text: string } | { value: null; dropped: Dropped };

/**
 * Judges a whole payload: over the cap, not UTF-8, not one JSON object, or empty. The parsed
 * object comes with it, so a reader that wants the object (the spool) does not parse it again.
 */
export function parsePayload(buf: Buffer): ParsedPayload {
  if (buf.length > MAX_PAYLOAD_BYTES) return { value: null, dropped: 'too_large' };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    return { value: null, dropped: 'malformed' };
  }
  text = text.replace(/^\uFEFF/, '').trim();
  if (text === '') return { value: null, dropped: 'empty' };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { value: null, dropped: 'malformed' };
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return { value: null, dropped: 'malformed' };
  return { value: v as Record<string, unknown>, text };
}

/** Judges a whole payload (parsePayload), as the JSON text nerdr passes on. */
export function decodePayload(buf: Buffer): Payload {
  const p = parsePayload(buf);
  if (p.value === null) return { json: null, dropped: p.dropped };
  // Valid JSON has no raw CR/LF inside strings, so these are whitespace: the line stays one line
  // and the text is passed verbatim (numbers beyond 2^53 keep their exact digits).
  return { json: p.text.replace(/[\r\n]/g, ' ') };
}
