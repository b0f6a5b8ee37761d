// A dialog read from an agent's screen: its text and its options as the agent shows them.
// Written from the real screens in test/agents/screens/<agent>/permission.txt and question.txt
// (Claude Code, Codex, Copilot, Gemini, Qwen: numbered options one per line, the selected one
// marked ❯ › ● or >; opencode and Kilo: the choices on one line, the selected one drawn on
// another background). The reader needs no agent: an agent's DialogSpec only says where its
// dialog's text begins and which labels make a row of choices.

import type { Dialog, DialogOption, OptionKind } from '../protocol/index.js';
import { visible } from '../text.js';

export interface DialogSpec {
  /** A line that begins the dialog's text (taken from there down to the options); null: the generic bounds. */
  top: RegExp | null;
  /** Choices on one line, left to right (opencode's "Allow once   Allow always   Reject"); null: numbered options. */
  row: readonly string[] | null;
  /** Keys that refuse, as the real-agent suite proved them (['Escape']); null: choose the deny option. */
  denyKeys: readonly string[] | null;
}

/** How far above the bottom of the screen a dialog's options are looked for. */
const SCAN_LINES = 40;
/** Most lines of text kept above the options. */
const MAX_TEXT_LINES = 12;
/** Lines that hold something below a dialog's last option, at most (its hints, a box's edge, the agent's footer): a numbered list higher up is not a dialog (Gemini's start tips). */
const MAX_BELOW = 6;
/** Lines between two options of a list (descriptions, a rule): more ends the list. */
const MAX_GAP = 3;

const BORDER = '│┃║';
const BOX_ONLY = /^[\s─━═│┃║╭╮╰╯┌┐└┘├┤┬┴┼╔╗╚╝▔▁]+$/u;
/** `❯ 1. Yes`, `› 2. No (esc)`, `● 1. Allow once`, `  3. No`. */
const OPTION = /^([❯›●>▸▶]?)\s*(\d{1,2})\.\s+(\S.*?)\s*$/u;
const SELECTED_MARKS = new Set(['❯', '›', '●', '>', '▸', '▶']);

/** Strips the borders of boxes (nested ones too) from both ends of a line; says whether any was stripped. */
export function unbox(line: string): { text: string; boxed: boolean } {
  // a scroll bar drawn at the right edge (Qwen Code's █) is not the dialog's
  let s = line.replace(/\s+$/u, '').replace(/^\s*[█▐]$/u, '').replace(/\s{2,}[█▐▕]$/u, '');
  let boxed = false;
  for (;;) {
    const t = s.replace(/^\s*/u, '');
    if (t.length > 0 && BORDER.includes(t[0]!) && !BOX_ONLY.test(t)) {
      s = t.slice(1);
      boxed = true;
      s = s.replace(/\s*[│┃║]$/u, '');
      continue;
    }
    if (t.length > 0 && BORDER.includes(t[0]!) && BOX_ONLY.test(t)) {
      // a box's inner border line inside an outer box, e.g. `│ ╰────╯ │`
      return { text: t.slice(1).replace(/[│┃║]$/u, '').trim(), boxed: true };
    }
    return { text: s.trim(), boxed };
  }
}

/** What an option does, from its label. */
export function optionKind(label: string): OptionKind {
  const l = label.toLowerCase();
  if (/^(type something|other\b|something else)/.test(l)) return 'text';
  if (/^(no|reject|deny|cancel|don't|do not)\b/.test(l)) return 'deny';
  if (/^(yes|allow|approve|proceed|accept|always)\b/.test(l)) {
    return /always|don't ask again|do not ask again|for this session|for the session|for this user|for this project|in this (repo|project)/.test(l) ? 'always' : 'approve';
  }
  return 'choice';
}

/**
 * The dialog on a screen, or null when none is shown. `screen` is the screen's text (one line
 * per row); `ansi`, its rows with colours (for a row of choices, whose selection is a colour).
 */
export function readDialog(screen: string, spec: DialogSpec | null, ansi?: string): Dialog | null {
  const all = screen.replace(/\n+$/u, '').split('\n');
  const from = Math.max(0, all.length - SCAN_LINES);
  const lines = all.slice(from).map((l) => unbox(l));
  const found = spec?.row ? findRow(lines, spec.row, ansi?.split('\n').slice(from)) : findList(lines);
  if (!found) return null;
  const text = textAbove(lines, found.first, spec?.top ?? null);
  return { text: text.map((l) => visible(l)).join('\n'), options: found.options, selected: found.selected, layout: spec?.row ? 'row' : 'list' };
}

interface Found {
  options: DialogOption[];
  selected: number;
  /** The line of the first option. */
  first: number;
}

/** The last run of numbered options 1..k on the screen. */
function findList(lines: { text: string }[]): Found | null {
  let last = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (OPTION.test(lines[i]!.text)) {
      last = i;
      break;
    }
  }
  if (last < 0) return null;
  if (lines.slice(last + 1).filter((l) => l.text !== '').length > MAX_BELOW) return null;
  const byLine: { line: number; n: number; label: string; mark: string }[] = [];
  let expect: number | null = null;
  let gap = 0;
  for (let i = last; i >= 0; i--) {
    const m = OPTION.exec(lines[i]!.text);
    if (m && (expect === null || Number(m[2]) === expect)) {
      const n = Number(m[2]);
      byLine.unshift({ line: i, n, label: m[3]!, mark: m[1]! });
      if (n === 1) break;
      expect = n - 1;
      gap = 0;
      continue;
    }
    if (++gap > MAX_GAP) return null;
  }
  if (byLine.length < 2 || byLine[0]!.n !== 1) return null;
  const options = byLine.map((o) => ({ n: o.n, label: visible(o.label), kind: optionKind(o.label) }));
  const sel = byLine.findIndex((o) => SELECTED_MARKS.has(o.mark));
  return { options, selected: Math.max(0, sel), first: byLine[0]!.line };
}

/** A row of the given choices on one line; the selected one is the one drawn on its own background. */
function findRow(lines: { text: string }[], labels: readonly string[], ansi: string[] | undefined): Found | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const t = lines[i]!.text;
    let at = 0;
    const places: number[] = [];
    for (const label of labels) {
      const p = t.indexOf(label, at);
      if (p < 0) break;
      places.push(p);
      at = p + label.length;
    }
    if (places.length !== labels.length) continue;
    const options = labels.map((label, k) => ({ n: k + 1, label, kind: optionKind(label) }));
    return { options, selected: ansi?.[i] !== undefined ? selectedByBackground(ansi[i]!, labels) : 0, first: i };
  }
  return null;
}

/** Which label of a row starts on a background of its own (the others share one). */
export function selectedByBackground(ansiLine: string, labels: readonly string[]): number {
  const bgs = labels.map((l) => backgroundAt(ansiLine, l));
  for (let k = 0; k < bgs.length; k++) {
    const others = bgs.filter((_, j) => j !== k);
    if (bgs[k] !== undefined && others.every((b) => b !== bgs[k]) && others.every((b) => b === others[0])) return k;
  }
  return 0;
}

/** The background SGR in effect where `label` starts in a line with colours; undefined when not found. */
function backgroundAt(ansiLine: string, label: string): string | undefined {
  let bg = '';
  let i = 0;
  let plain = '';
  while (i < ansiLine.length) {
    if (ansiLine[i] === '\x1b' && ansiLine[i + 1] === '[') {
      const end = ansiLine.slice(i + 2).search(/[@-~]/u);
      if (end < 0) break;
      const params = ansiLine.slice(i + 2, i + 2 + end);
      if (ansiLine[i + 2 + end] === 'm') bg = applyBg(bg, params);
      i += 3 + end;
      continue;
    }
    plain += ansiLine[i];
    if (plain.endsWith(label[0]!) && ansiLine.startsWith(label.slice(1), i + 1)) return bg;
    i++;
  }
  return undefined;
}

function applyBg(bg: string, params: string): string {
  const p = params === '' ? ['0'] : params.split(';');
  for (let k = 0; k < p.length; k++) {
    const v = p[k]!;
    if (v === '0' || v === '49') bg = '';
    else if (v === '7') bg = 'inverse';
    else if (v === '48') {
      const n = p[k + 1] === '5' ? 3 : 5;
      bg = p.slice(k, k + n).join(';');
      k += n - 1;
    } else if (/^(4[0-7]|10[0-7])$/.test(v)) bg = v;
  }
  return bg;
}

/**
 * The dialog's text: the lines above its first option, up to the agent's top line, else up to
 * a rule or box edge of the screen itself, two blank lines in a row, or MAX_TEXT_LINES.
 */
function textAbove(lines: { text: string; boxed: boolean }[], first: number, top: RegExp | null): string[] {
  let i = first - 1;
  while (i >= 0 && lines[i]!.text === '') i--;
  if (top) {
    for (let j = i; j >= Math.max(0, i - MAX_TEXT_LINES * 2); j--) {
      if (top.test(lines[j]!.text)) return lines.slice(j, i + 1).map((l) => l.text).filter((t) => t !== '' && !BOX_ONLY.test(t));
    }
  }
  const out: string[] = [];
  let blanks = 0;
  for (; i >= 0 && out.length < MAX_TEXT_LINES; i--) {
    const l = lines[i]!;
    if (l.text === '') {
      if (++blanks >= 2) break;
      continue;
    }
    blanks = 0;
    if (BOX_ONLY.test(l.text)) {
      if (!l.boxed) break;
      continue;
    }
    out.unshift(l.text);
  }
  return out;
}
