// Regions: the slice of the input a rule's matchers see (docs/manifest-format.md, "Regions").

import { rustLines } from './regex.js';
import { isBlank, trimWs } from './text.js';

export type RegionSpec =
  | {
      kind:
        | 'whole_recent'
        | 'after_last_prompt_marker'
        | 'before_current_prompt_marker'
        | 'whole_recent_without_current_prompt_marker'
        | 'current_prompt_block_marker'
        | 'after_current_prompt_block_marker'
        | 'prompt_box_body'
        | 'above_prompt_box'
        | 'last_non_empty_above_prompt_box'
        | 'after_last_horizontal_rule'
        | 'osc_title'
        | 'osc_progress';
    }
  | { kind: 'bottom_lines' | 'bottom_non_empty_lines' | 'top_non_empty_lines'; count: number };

const SIMPLE_REGIONS = new Set([
  'whole_recent',
  'after_last_prompt_marker',
  'before_current_prompt_marker',
  'whole_recent_without_current_prompt_marker',
  'current_prompt_block_marker',
  'after_current_prompt_block_marker',
  'prompt_box_body',
  'above_prompt_box',
  'last_non_empty_above_prompt_box',
  'after_last_horizontal_rule',
  'osc_title',
  'osc_progress',
]);

const U64_MAX = (1n << 64n) - 1n;

/**
 * Parse a region name. The loader trims it; `bottom_*` counts parse like Rust's `usize` (digits,
 * one optional leading `+`, zeros allowed); `top_non_empty_lines` needs a canonical 1–65535.
 * Returns an error string for an unknown or malformed name.
 */
export function parseRegion(raw: string): RegionSpec | string {
  const name = trimWs(raw);
  if (SIMPLE_REGIONS.has(name)) return { kind: name } as RegionSpec;
  const m = /^(bottom_lines|bottom_non_empty_lines|top_non_empty_lines)\((.*)\)$/su.exec(name);
  if (!m) return `unknown region "${raw}"`;
  const kind = m[1] as 'bottom_lines' | 'bottom_non_empty_lines' | 'top_non_empty_lines';
  const arg = m[2] ?? '';
  if (kind === 'top_non_empty_lines') {
    if (!/^[1-9][0-9]*$/.test(arg) || Number(arg) > 65535) {
      return `region "${raw}": the count must be a whole number from 1 to 65535 without sign or leading zero`;
    }
    return { kind, count: Number(arg) };
  }
  if (!/^\+?[0-9]+$/.test(arg) || BigInt(arg.replace('+', '')) > U64_MAX) {
    return `region "${raw}": the count must be an unsigned whole number`;
  }
  const n = BigInt(arg.replace('+', ''));
  return { kind, count: n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n) };
}

export function regionName(spec: RegionSpec): string {
  return 'count' in spec ? `${spec.kind}(${spec.count})` : spec.kind;
}

/** Whether the region looks at the top of the screen (used to decide which end to keep when capping). */
export function regionKeepsHead(spec: RegionSpec): boolean {
  return spec.kind === 'top_non_empty_lines';
}

/** Per-screen facts shared by all regions, computed once per evaluation. */
export class ScreenLayout {
  readonly lines: string[];
  readonly starts: number[];
  private readonly blank: boolean[];
  private hrCache: number[] | undefined;
  private promptCache: { last: number; current: number } | undefined;

  constructor(readonly text: string) {
    this.lines = rustLines(text);
    this.starts = [];
    let off = 0;
    for (const l of this.lines) {
      this.starts.push(off);
      off += l.length + 1;
    }
    this.starts.push(off); // start of the (virtual) line after the last one
    this.blank = this.lines.map((l) => isBlank(l));
  }

  /** Offset where line k starts (k may be lines.length: the end). */
  start(k: number): number {
    return this.starts[Math.max(0, Math.min(k, this.lines.length))] ?? this.text.length;
  }

  from(k: number): string {
    return this.text.slice(this.start(k));
  }

  isBlank(k: number): boolean {
    return this.blank[k] ?? true;
  }

  /** Indexes of horizontal-rule lines, top to bottom. */
  hrs(): number[] {
    if (!this.hrCache) {
      this.hrCache = [];
      this.lines.forEach((l, k) => {
        if (isHorizontalRule(l)) this.hrCache!.push(k);
      });
    }
    return this.hrCache;
  }

  /** [top border, bottom border] of the prompt box, or null. */
  promptBox(): [number, number] | null {
    const h = this.hrs();
    if (h.length < 2) return null;
    return [h[h.length - 2] as number, h[h.length - 1] as number];
  }

  /** Last codex prompt line, and the current prompt (-1 when none). */
  prompts(): { last: number; current: number } {
    if (!this.promptCache) {
      let last = -1;
      this.lines.forEach((l, k) => {
        if (isPromptLine(l)) last = k;
      });
      let current = last;
      if (last >= 0) {
        for (let k = last + 1; k < this.lines.length; k++) {
          if (isBlockMarkerLine(this.lines[k] as string)) {
            current = -1;
            break;
          }
        }
      }
      this.promptCache = { last, current };
    }
    return this.promptCache;
  }

  /** Last block-marker line above the current prompt, or -1. */
  currentBlockMarker(): number {
    const { current } = this.prompts();
    if (current < 0) return -1;
    for (let k = current - 1; k >= 0; k--) if (isBlockMarkerLine(this.lines[k] as string)) return k;
    return -1;
  }
}

export function isHorizontalRule(line: string): boolean {
  const t = trimWs(line);
  if (!t.startsWith('─')) return false;
  let run = 0;
  while (t[run] === '─') run += 1;
  return run >= 3 || trimWs(t.slice(run)) === '';
}

export function isPromptLine(line: string): boolean {
  return line === '›' || line.startsWith('› ');
}

export function isBlockMarkerLine(line: string): boolean {
  const first = String.fromCodePoint(line.codePointAt(0) ?? 0);
  return first === '•' || first === '■' || first === '✗' || first === '✓';
}

export interface RegionInput {
  layout: ScreenLayout;
  oscTitle: string;
  oscProgress: string;
}

/** The text of one region. */
export function extractRegion(spec: RegionSpec, input: RegionInput): string {
  const { layout } = input;
  const text = layout.text;
  const L = layout.lines.length;
  switch (spec.kind) {
    case 'whole_recent':
      return text;
    case 'osc_title':
      return input.oscTitle;
    case 'osc_progress':
      return input.oscProgress;
    case 'bottom_lines':
      return layout.from(Math.max(0, L - spec.count));
    case 'bottom_non_empty_lines': {
      if (spec.count === 0) return '';
      let seen = 0;
      let startLine = -1;
      for (let k = L - 1; k >= 0; k--) {
        if (!layout.isBlank(k)) {
          seen += 1;
          startLine = k;
          if (seen === spec.count) break;
        }
      }
      return startLine < 0 ? '' : layout.from(startLine);
    }
    case 'top_non_empty_lines': {
      let seen = 0;
      let endLine = -1;
      for (let k = 0; k < L; k++) {
        if (!layout.isBlank(k)) {
          seen += 1;
          endLine = k;
          if (seen === spec.count) break;
        }
      }
      return endLine < 0 ? '' : text.slice(0, layout.start(endLine + 1));
    }
    case 'after_last_horizontal_rule': {
      const h = layout.hrs();
      if (h.length === 0) return text;
      return layout.from((h[h.length - 1] as number) + 1);
    }
    case 'prompt_box_body': {
      const box = layout.promptBox();
      if (!box) return '';
      return text.slice(layout.start(box[0] + 1), layout.start(box[1]));
    }
    case 'above_prompt_box': {
      const box = layout.promptBox();
      if (!box) return text;
      return text.slice(0, layout.start(box[0]));
    }
    case 'last_non_empty_above_prompt_box': {
      const box = layout.promptBox();
      const end = box ? box[0] : L;
      for (let k = end - 1; k >= 0; k--) if (!layout.isBlank(k)) return layout.lines[k] as string;
      return '';
    }
    case 'after_last_prompt_marker': {
      const { last } = layout.prompts();
      return last < 0 ? text : layout.from(last + 1);
    }
    case 'before_current_prompt_marker': {
      const { current } = layout.prompts();
      return current < 0 ? text : text.slice(0, layout.start(current));
    }
    case 'whole_recent_without_current_prompt_marker':
      return layout.prompts().current < 0 ? text : '';
    case 'current_prompt_block_marker': {
      const b = layout.currentBlockMarker();
      return b < 0 ? '' : (layout.lines[b] as string);
    }
    case 'after_current_prompt_block_marker': {
      const b = layout.currentBlockMarker();
      return b < 0 ? '' : layout.from(b);
    }
  }
}
