// Dialogs read from the real screens the real-agent suite captured (test/agents/screens/).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { optionKind, readDialog, selectedByBackground, unbox } from '../../../src/inbox/dialog.js';
import { INTEGRATIONS } from '../../../src/integrations/index.js';

const screen = (agent: string, name: string) => readFileSync(new URL(`../../agents/screens/${agent}/${name}.txt`, import.meta.url), 'utf8');
const ansi = (agent: string, name: string) => readFileSync(new URL(`../../agents/screens/${agent}/${name}.ansi.txt`, import.meta.url), 'utf8');
const spec = (agent: keyof typeof INTEGRATIONS) => INTEGRATIONS[agent].dialogs;
const read = (agent: keyof typeof INTEGRATIONS, name: string) => readDialog(screen(agent, name), spec(agent), ansi(agent, name));
const labels = (d: ReturnType<typeof readDialog>) => d?.options.map((o) => `${o.n}:${o.kind}`);

describe('permission dialogs of the real agents', () => {
  it('Claude Code: the text below the rule, three numbered options, ❯ on the first', () => {
    const d = read('claude', 'permission')!;
    expect(d.text).toBe('Bash command\ntouch harness-was-here.txt && echo hello-from-harness\nCreate a marker file and print a greeting\nDo you want to proceed?');
    expect(labels(d)).toEqual(['1:approve', '2:always', '3:deny']);
    expect(d).toMatchObject({ selected: 0, layout: 'list' });
  });

  it('Codex: from "Would you like…" down, its options with their shortcut letters', () => {
    const d = read('codex', 'permission')!;
    expect(d.text.split('\n')[0]).toBe('Would you like to run the following command?');
    expect(d.text).toContain('$ touch harness-was-here.txt');
    expect(d.options[0]!.label).toBe('Yes, proceed (y)');
    expect(labels(d)).toEqual(['1:approve', '2:always', '3:deny']);
  });

  it('Copilot and Gemini: inside boxes (inner boxes and rules skipped, the borders stripped)', () => {
    const c = read('copilot', 'permission')!;
    expect(c.text.split('\n').at(-1)).toBe('Do you want to run this command?');
    expect(c.text).not.toMatch(/[│╭╰]/u);
    expect(labels(c)).toEqual(['1:approve', '2:always', '3:deny']);
    const g = read('gemini', 'permission')!;
    expect(g.text.split('\n').at(-1)).toBe('Allow execution of [Shell]?');
    expect(labels(g)).toEqual(['1:approve', '2:always', '3:deny']);
  });

  it("Qwen Code: from its `? Shell` line; four options; its scroll bar is not text", () => {
    for (const name of ['permission', 'permission-before-deny']) {
      const d = read('qwen', name)!;
      expect(d.text.split('\n')[0]).toMatch(/^\? Shell touch/);
      expect(d.text).not.toContain('█');
      expect(labels(d)).toEqual(['1:approve', '2:always', '3:always', '4:deny']);
      expect(d.options.every((o) => !o.label.includes('█'))).toBe(true);
    }
  });

  it('opencode and Kilo: the choices on one line, the selection read from its background', () => {
    for (const agent of ['opencode', 'kilo'] as const) {
      const d = read(agent, 'permission')!;
      expect(d.text.split('\n')[0]).toBe('△ Permission required');
      expect(d.text).toContain('$ touch harness-was-here.txt && echo hello-from-harness');
      expect(d).toMatchObject({ layout: 'row', selected: 0 });
      expect(labels(d)).toEqual(['1:approve', '2:always', '3:deny']);
    }
  });

  it('a question: Claude Code numbers its choices, with descriptions and a rule between them', () => {
    const d = read('claude', 'question')!;
    expect(d.text.split('\n').at(-1)).toBe('Which colour should the harness use?');
    expect(d.options.map((o) => o.label)).toEqual(['Red', 'Blue', 'Type something.', 'Chat about this']);
    expect(labels(d)).toEqual(['1:choice', '2:choice', '3:text', '4:choice']);
  });

  it('no dialog on a finished or idle screen', () => {
    for (const agent of ['claude', 'codex', 'opencode', 'gemini'] as const) {
      expect(readDialog(screen(agent, 'done'), spec(agent), ansi(agent, 'done')), agent).toBeNull();
    }
  });
});

describe('the reader', () => {
  it('control characters in a dialog are shown, not obeyed', () => {
    const d = readDialog(['Run \x1b]0;PWNED\x07 now?', '❯ 1. Yes \x1b[2J', '  2. No'].join('\n'), null)!;
    expect(d.text).toBe('Run ^[]0;PWNED^G now?');
    expect(d.options[0]!.label).toBe('Yes ^[[2J');
  });

  it('the selection follows the marker; a list needs options 1..k in order', () => {
    expect(readDialog('Go?\n  1. Yes\n› 2. No\n', null)!.selected).toBe(1);
    expect(readDialog('Go?\n  2. Yes\n  3. No\n', null)).toBeNull();
    expect(readDialog('1. only one\n', null)).toBeNull();
  });

  it('a row selection is the label drawn on a background of its own', () => {
    const line = '\x1b[48;5;234m  \x1b[38;5;8mAllow once\x1b[0m   \x1b[48;5;215mAllow always\x1b[48;5;234m   Reject';
    expect(selectedByBackground(line, ['Allow once', 'Allow always', 'Reject'])).toBe(1);
    expect(selectedByBackground('Allow once  Allow always  Reject', ['Allow once', 'Allow always', 'Reject'])).toBe(0);
  });

  it('what an option does, from its label', () => {
    expect(optionKind("Yes, and don't ask again for commands that start with `ls` (p)")).toBe('always');
    expect(optionKind('Allow for this session')).toBe('always');
    expect(optionKind('No, and tell Codex what to do differently (esc)')).toBe('deny');
    expect(optionKind('Reject')).toBe('deny');
    expect(optionKind('Blue')).toBe('choice');
    expect(optionKind('Type something.')).toBe('text');
  });

  it('box borders, nested ones too, are stripped; a border line inside a box is marked boxed', () => {
    expect(unbox('│ │ touch x │ │')).toEqual({ text: 'touch x', boxed: true });
    expect(unbox('│ ╰──────╯ │')).toEqual({ text: '╰──────╯', boxed: true });
    expect(unbox('╭──────╮')).toEqual({ text: '╭──────╮', boxed: false });
  });
});
