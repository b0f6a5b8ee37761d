import { afterEach, describe, expect, it } from 'vitest';
import { type NewAgentSpec, Dashboard, screenText, type DashActions } from '../../../src/ui/dash.js';
import { dashRows, fit, lightKind, rowCells, shortCwd, type AgentInfo } from '../../../src/ui/rows.js';
import { blessedColour, colour256, tagLight } from '../../../src/ui/theme.js';
import { looksFromOptions, parseShowOptions, tmuxLight } from '../../../src/looks.js';
import { fakeScreen } from './screen.js';

const NOW = 1_800_000_000_000;

function agent(over: Partial<AgentInfo>): AgentInfo {
  return {
    background: false,
    subagents: 0,
    backgroundTasks: 0,
    conversationId: null,
    conversationFrom: null,
    seen: false,
    name: 'a',
    agent: 'claude',
    state: 'idle',
    stateSince: NOW - 5000,
    session: 'work',
    sessions: ['work'],
    window: '@1',
    windowIndex: 1,
    pane: '%1',
    cwd: '/home/me/src/app',
    id: 'id-a',
    exitStatus: null,
    ...over,
  } as AgentInfo;
}

const AGENTS: AgentInfo[] = [
  agent({ name: 'fixer', state: 'blocked', window: '@2', windowIndex: 2, pane: '%2', id: 'id-fixer', stateSince: NOW - 90_000, queue: 2 } as Partial<AgentInfo>),
  agent({ name: 'writer', agent: 'codex', state: 'working', window: '@1', windowIndex: 1, pane: '%1', id: 'id-writer' }),
  agent({ name: 'tester', agent: 'opencode', state: 'done', window: '@3', windowIndex: 3, pane: '%3', id: 'id-tester', cwd: '/srv/t' }),
];

interface Calls {
  read: string[];
  send: [string, string][];
  stop: string[];
  sleep: string[];
  jump: string[];
  made: NewAgentSpec[];
}

function fakeActions(screens: Record<string, string> = {}): { actions: DashActions; calls: Calls } {
  const calls: Calls = { read: [], send: [], stop: [], sleep: [], jump: [], made: [] };
  return {
    calls,
    actions: {
      read: async (t) => {
        calls.read.push(t);
        return screens[t] ?? `screen of ${t}\n`;
      },
      send: async (t, m) => void calls.send.push([t, m]),
      stop: async (t) => void calls.stop.push(t),
      hibernate: async (t) => void calls.sleep.push(`hibernate ${t}`),
      wake: async (t) => void calls.sleep.push(`wake ${t}`),
      jump: async (r) => void calls.jump.push(r.target),
      inbox: async () => [],
      answer: async () => undefined,
      snooze: async () => undefined,
      cancel: async () => undefined,
      newAgent: async (spec) => {
        calls.made.push(spec);
        return '@9';
      },
    },
  };
}

const settle = () => new Promise((r) => setImmediate(r));

let cleanup: (() => void)[] = [];
afterEach(() => {
  cleanup.forEach((f) => f());
  cleanup = [];
});

function open(screens?: Record<string, string>, cols = 100, rows = 30) {
  const fs = fakeScreen(cols, rows);
  cleanup.push(fs.destroy);
  const { actions, calls } = fakeActions(screens);
  const dash = new Dashboard({ screen: fs.screen, actions, now: () => NOW, tickMs: 0, home: '/home/me', view: 'agents' });
  return { ...fs, dash, calls, text: () => screenText(fs.screen) };
}

describe('rows', () => {
  it('orders agents as the status bar does and fills every column', () => {
    const rows = dashRows(AGENTS, NOW, '/home/me');
    expect(rows.map((r) => [r.name, r.kind, r.age, r.queue, r.cwd])).toEqual([
      ['writer', 'working', '5s', '-', '~/src/app'],
      ['fixer', 'blocked', '1m', '2', '~/src/app'],
      ['tester', 'done', '5s', '-', '/srv/t'],
    ]);
  });

  it("shows what herdr-style reports ask: the display name or reported label as the agent, the state's text and the title", () => {
    const [r] = dashRows([agent({ agent: 'unknown', reportedAgent: 'mybot', state: 'working', stateLabel: 'Reviewing PR 12', title: 'Fix login', cwd: '/srv/x' } as Partial<AgentInfo>)], NOW, '/home/me');
    expect(r).toMatchObject({ agent: 'mybot', stateLabel: 'Reviewing PR 12', title: 'Fix login' });
    expect(rowCells(r!, 120)).toContain('Reviewing PR 12 · Fix login  /srv/x');
    const [d] = dashRows([agent({ reportedAgent: 'mybot', displayAgent: 'My Bot' } as Partial<AgentInfo>)], NOW, '/home/me');
    expect(d!.agent).toBe('My Bot');
  });

  it('gives exited, stalled and background work their own light', () => {
    expect(lightKind(agent({ state: 'exited', exitStatus: '0' }))).toBe('exited');
    expect(lightKind(agent({ state: 'working', background: true }))).toBe('background');
    expect(lightKind(agent({ state: 'idle', queue: 1, queueStalled: true } as Partial<AgentInfo>))).toBe('stalled');
    expect(lightKind(agent({ state: 'strange' }))).toBe('unknown');
  });

  it('cuts long text with an ellipsis, folders from the left', () => {
    expect(fit('abcdef', 4)).toBe('abc…');
    expect(fit('/a/b/c/d', 5, true)).toBe('…/c/d');
    expect(fit('ab', 4)).toBe('ab  ');
    expect(shortCwd('/home/me', '/home/me')).toBe('~');
  });
});

describe('theme', () => {
  it('reads @nerdr-glyph-* and @nerdr-color-* options, defaults for the rest', () => {
    const opts = parseShowOptions('@nerdr-glyph-blocked "✋"\n@nerdr-color-blocked #ff8800\nstatus on\n');
    const looks = looksFromOptions(opts);
    expect(looks.blocked).toEqual({ glyph: '✋', color: '#ff8800' });
    expect(looks.done).toEqual({ glyph: '●', color: 'green,bold' });
    expect(tmuxLight(looks.done)).toBe('#[push-default]#[none,bg=black,fg=green,bold]●#[default]#[pop-default]');
  });

  it('maps tmux colours to blessed ones', () => {
    expect(blessedColour('red')).toBe('red');
    expect(blessedColour('brightred')).toBe('lightred');
    expect(blessedColour('colour245')).toBe('245');
    expect(colour256(245)).toBe('#8a8a8a');
    expect(colour256(196)).toBe('#ff0000');
    expect(blessedColour('default')).toBeNull();
    expect(tagLight({ glyph: '●', color: 'red,bold' })).toBe('{red-fg}{bold}●{/bold}{/red-fg}');
  });
});

describe('dashboard screen', () => {
  it('shows every agent with its light, state, age, queue and folder, and a header count', async () => {
    const d = open();
    d.dash.update(AGENTS);
    await settle();
    const text = d.text();
    expect(text[0]).toContain('nerdr · 3 agents · inbox 0');
    const row = (name: string) => text.find((l) => l.includes(name)) ?? '';
    expect(row('writer')).toMatch(/● writer\s+codex\s+working\s+5s\s+-\s+-\s+~\/src\/app/);
    expect(row('fixer')).toMatch(/● fixer\s+claude\s+blocked\s+1m\s+2\s+-\s+~\/src\/app/);
    expect(row('tester')).toMatch(/● tester\s+opencode\s+done\s+5s\s+-\s+-\s+\/srv\/t/);
    expect(text.join('\n')).toContain('enter go · s send · n new · x stop · z hibernate/wake · Tab inbox · q quit');
  });

  it('a 40x12 popup still shows every row, the preview below', async () => {
    const d = open(undefined, 40, 12);
    d.dash.update(AGENTS);
    await settle();
    const text = d.text().join('\n');
    for (const name of ['writer', 'fixer', 'tester']) expect(text).toContain(name);
    expect(text).toContain(' writer · working '); // the preview's label, below the list
  });

  it('draws the lights in their colours', async () => {
    const d = open();
    d.dash.update(AGENTS);
    await settle();
    const lines = (d.screen as unknown as { lines: [number, string][][] }).lines;
    const fgOfLight = (name: string): number => {
      const y = d.text().findIndex((l) => l.includes(name));
      const x = d.text()[y]!.indexOf('●');
      return (lines[y]![x]![0] >> 9) & 0x1ff;
    };
    expect(fgOfLight('fixer')).toBe(1); // red
    expect(fgOfLight('writer')).toBe(3); // yellow
    expect(fgOfLight('tester')).toBe(2); // green
  });

  it('draws idle in the grey of the bar (colour245), not in the yellow of working', async () => {
    const d = open();
    d.dash.update([...AGENTS, agent({ name: 'resting', state: 'idle', window: '@4', windowIndex: 4, pane: '%4', id: 'id-resting' })]);
    await settle();
    const lines = (d.screen as unknown as { lines: [number, string][][] }).lines;
    const y = d.text().findIndex((l) => l.includes('resting'));
    const x = d.text()[y]!.indexOf('○');
    expect((lines[y]![x]![0] >> 9) & 0x1ff).toBe(245);
  });

  it('previews the selected agent and follows the selection and every change', async () => {
    const d = open({ '@1': '\x1b[0;31mred line\x1b[0m\nsecond line\n', '@2': 'Do you want to proceed?\n' });
    d.dash.update(AGENTS);
    await settle();
    expect(d.calls.read).toEqual(['@1']);
    expect(d.text().join('\n')).toContain('red line');
    d.key('j', 'j');
    await settle();
    expect(d.dash.selected()?.name).toBe('fixer');
    expect(d.calls.read.at(-1)).toBe('@2');
    expect(d.text().join('\n')).toContain('Do you want to proceed?');
    d.dash.update(AGENTS.map((a) => (a.name === 'fixer' ? { ...a, state: 'working' } : a)));
    await settle();
    expect(d.calls.read.at(-1)).toBe('@2');
    expect(d.dash.selected()?.state).toBe('working');
    d.key('up');
    expect(d.dash.selected()?.name).toBe('writer');
    d.key('k', 'k');
    expect(d.dash.selected()?.name).toBe('writer');
  });

  it('keeps the selection on the same agent when the list changes around it', async () => {
    const d = open();
    d.dash.update(AGENTS);
    d.key('down');
    d.key('down');
    expect(d.dash.selected()?.name).toBe('tester');
    d.dash.update(AGENTS.filter((a) => a.name !== 'writer'));
    expect(d.dash.selected()?.name).toBe('tester');
    d.dash.update([]);
    await settle();
    expect(d.text().join('\n')).toContain('no agents');
  });

  it('jumps to the selected agent on enter and then quits', async () => {
    const d = open();
    d.dash.update(AGENTS);
    d.key('down');
    d.key('enter');
    await d.dash.done;
    expect(d.calls.jump).toEqual(['@2']);
  });

  it('sends a message typed in the prompt', async () => {
    const d = open();
    d.dash.update(AGENTS);
    d.key('s', 's');
    await settle(); // blessed's textbox starts reading on the next tick
    for (const ch of 'hi there') d.key(ch === ' ' ? 'space' : ch, ch);
    // a real Enter (\r) is two keypresses in blessed: 'enter', then 'return' (program.js)
    d.key('enter', '\r');
    d.key('return', '\r');
    await settle();
    expect(d.calls.send).toEqual([['@1', 'hi there']]);
    expect(d.text().join('\n')).toContain('queued for writer');
    // the Enter that sent is not also a jump (which quit the dashboard and typed the next keys into the agent)
    expect(d.calls.jump).toEqual([]);
  });

  it('stops an agent only after y, and keeps it on any other key', async () => {
    const d = open();
    d.dash.update(AGENTS);
    d.key('x', 'x');
    expect(d.text().join('\n')).toContain('stop writer?');
    d.key('n', 'n');
    await settle();
    expect(d.calls.stop).toEqual([]);
    d.key('x', 'x');
    d.key('y', 'y');
    await settle();
    expect(d.calls.stop).toEqual(['@1']);
    expect(d.text().join('\n')).toContain('writer stopped');
  });

  it('z hibernates the selected agent, and wakes a hibernated one', async () => {
    const d = open();
    d.dash.update(AGENTS);
    d.key('z', 'z');
    await settle();
    expect(d.calls.sleep).toEqual(['hibernate @1']);
    expect(d.text().join('\n')).toContain('writer hibernated');
    d.dash.update(AGENTS.map((a) => (a.window === '@1' ? { ...a, state: 'hibernated' } : a)));
    d.key('z', 'z');
    await settle();
    expect(d.calls.sleep).toEqual(['hibernate @1', 'wake @1']);
    expect(d.text().join('\n')).toContain('writer woke');
  });

  it('quits on q and on Esc', async () => {
    const a = open();
    a.key('q', 'q');
    await a.dash.done;
    const b = open();
    b.key('escape');
    await b.dash.done;
  });
});

describe('starting work from the dashboard', () => {
  it('a worktree branch column, with ⚠ when the branch would conflict', () => {
    const rows = dashRows([agent({ name: 'wt', branch: 'feat/x', conflict: 'feat/y', worktree: '/w/feat-x' } as Partial<AgentInfo>), agent({ name: 'plain', id: 'p2', pane: '%2' })], NOW, '/home/me');
    expect(rows.map((r) => [r.name, r.branch])).toEqual([['plain', '-'], ['wt', 'feat/x ⚠']]);
    expect(rowCells(null, 100)).toMatch(/QUEUE\s+BRANCH\s+CWD/);
  });

  it('n asks the agent, its name, a worktree and a first message, then starts it beside the selected agent', async () => {
    const d = open();
    d.dash.update(AGENTS);
    const type = async (text: string) => {
      await settle(); // blessed's textbox starts reading on the next tick
      for (const ch of text) d.key(ch === ' ' ? 'space' : ch, ch);
      d.key('enter', '\r');
      d.key('return', '\r');
    };
    d.key('n', 'n');
    await type('claude');
    await type('');
    await type('fix/login');
    await type('fix the login bug');
    await settle();
    await settle();
    expect(d.calls.made).toEqual([{ agent: 'claude', name: null, worktree: 'fix/login', prompt: 'fix the login bug', cwd: AGENTS[1]!.cwd }]);
    expect(d.text().join('\n')).toContain('started claude in @9; its first message is queued');
  });

  it('n, then esc at the first question starts nothing', async () => {
    const d = open();
    d.dash.update(AGENTS);
    d.key('n', 'n');
    await settle();
    d.key('escape', '\x1b');
    await settle();
    expect(d.calls.made).toEqual([]);
    expect(d.text().join('\n')).toContain('no agent started');
  });
});
