import { afterEach, describe, expect, it } from 'vitest';
import { Dashboard, screenText, type DashActions } from '../../../src/ui/dash.js';
import { inboxAction, inboxCells, inboxDetail, sameDialog, samePlace, SNOOZE_MS } from '../../../src/ui/inbox.js';
import type { AgentInfo } from '../../../src/ui/rows.js';
import type { AnswerChoice, Dialog, InboxRow } from '../../../src/protocol/index.js';
import { NerdrError } from '../../../src/errors.js';
import { hostError } from '../../../src/ui/run.js';
import { fakeScreen } from './screen.js';

const NOW = 1_800_000_000_000;

const DIALOG: Dialog = {
  text: 'Bash command\nrm -rf build/ && npm run build\nDo you want to proceed?',
  options: [
    { n: 1, label: 'Yes', kind: 'approve' },
    { n: 2, label: 'No', kind: 'deny' },
  ],
  selected: 0,
  layout: 'list',
};

function row(over: Partial<InboxRow>): InboxRow {
  return {
    id: 'p000000001',
    kind: 'blocked',
    window: '@1',
    name: 'asker',
    agent: 'demo',
    session: 'work',
    since: NOW - 65_000,
    summary: 'Do you want to proceed?',
    dialog: DIALOG,
    answerable: true,
    lines: [],
    message: null,
    host: null,
    ...over,
  };
}

const ASKER = row({});
const TWIN = row({ id: 'p000000002', window: '@2', name: 'twin', since: NOW - 30_000 });
const QUEUED = row({ id: 'm-1', kind: 'queued', window: '@1', summary: 'first note', dialog: null, answerable: false, since: NOW - 20_000, message: { id: 'm-1', text: 'first note\nsecond line', position: 1, queuedAt: NOW - 20_000 } });
const DONE = row({ id: 'd-3', kind: 'done', window: '@3', name: 'finisher', summary: 'all tests pass', dialog: null, answerable: false, lines: ['ran 12 tests', 'all tests pass'], since: NOW - 10_000 });
const FAR = row({ id: 'p000000009', window: '@7', name: 'remote', host: 'box', since: NOW - 5000 });

describe('inbox rows', () => {
  it('shows kind, waiting time, name (HOST:NAME on the fleet) and what it waits for', () => {
    expect(inboxCells(null, NOW, 100)).toMatch(/^KIND\s+WAITING\s+NAME\s+WHAT/);
    expect(inboxCells(ASKER, NOW, 100)).toMatch(/^blocked\s+1m\s+asker\s+Do you want to proceed\?  \[1 Yes · 2 No\]/);
    expect(inboxCells(QUEUED, NOW, 100)).toMatch(/^queued\s+20s\s+asker\s+#1 first note/);
    expect(inboxCells(FAR, NOW, 100)).toMatch(/^blocked\s+5s\s+box:remote\s+/);
    expect([...inboxCells(ASKER, NOW, 40)].length).toBe(40);
  });

  it('the preview holds the dialog in full with its numbered options, the turn\'s lines, or the message', () => {
    const d = inboxDetail(ASKER, NOW);
    expect(d).toContain('Bash command\nrm -rf build/ && npm run build\nDo you want to proceed?');
    expect(d).toContain('❯ 1. Yes  (approve)\n  2. No  (deny)');
    expect(d).toContain('1–2 answer · a approve · d deny · B all alike');
    expect(inboxDetail(DONE, NOW)).toContain('ran 12 tests\nall tests pass');
    expect(inboxDetail(QUEUED, NOW)).toContain('first note\nsecond line');
    expect(inboxDetail(QUEUED, NOW)).toContain('x cancels this message');
    expect(inboxDetail(FAR, NOW)).toContain('on box');
  });

  it("shows an agent's control characters as text, never as escapes", () => {
    const evil = row({ name: 'e\x1b]52;c;aGk=\x07', summary: 'x\x1b[2Jy', dialog: { ...DIALOG, text: 'clear\x1b[2J\nbell\x07', options: [{ n: 1, label: 'Y\x1b[31mes', kind: 'approve' }] } });
    for (const text of [inboxCells(evil, NOW, 200), inboxDetail(evil, NOW)]) {
      // eslint-disable-next-line no-control-regex
      expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
      expect(text).toContain('^[');
    }
    expect(inboxDetail(evil, NOW)).toContain('clear^[[2J\nbell^G');
  });
});

describe('inbox keys', () => {
  it('digits and a/A/d answer with that option, only when the dialog has it', () => {
    expect(inboxAction('1', ASKER)).toEqual({ do: 'answer', choice: 1, label: '1. Yes' });
    expect(inboxAction('a', ASKER)).toEqual({ do: 'answer', choice: 'approve', label: '1. Yes' });
    expect(inboxAction('d', ASKER)).toEqual({ do: 'answer', choice: 'deny', label: '2. No' });
    expect(inboxAction('A', ASKER)).toEqual({ do: 'refuse', why: 'the dialog has no always option' });
    expect(inboxAction('3', ASKER)).toEqual({ do: 'refuse', why: 'the dialog has no option 3' });
    expect(inboxAction('0', ASKER)).toBeNull();
  });

  it('refuses rows that take no answer, and options that need text', () => {
    expect(inboxAction('1', QUEUED)).toMatchObject({ do: 'refuse' });
    expect(inboxAction('a', row({ answerable: false }))).toMatchObject({ do: 'refuse', why: expect.stringContaining("does not answer demo's dialogs") });
    expect(inboxAction('1', row({ dialog: null }))).toMatchObject({ do: 'refuse', why: expect.stringContaining('cannot read') });
    const q = row({ dialog: { ...DIALOG, options: [{ n: 1, label: 'Type something.', kind: 'text' }] } });
    expect(inboxAction('1', q)).toMatchObject({ do: 'refuse', why: expect.stringContaining('takes text') });
    expect(inboxAction('1', undefined)).toEqual({ do: 'refuse', why: 'nothing waits for you' });
  });

  it('B, z, Z and x', () => {
    expect(inboxAction('B', ASKER)).toEqual({ do: 'bulk' });
    expect(inboxAction('B', QUEUED)).toMatchObject({ do: 'refuse' });
    expect(inboxAction('z', DONE)).toEqual({ do: 'snooze', ms: SNOOZE_MS });
    expect(inboxAction('Z', DONE)).toEqual({ do: 'ask-snooze' });
    expect(inboxAction('x', QUEUED)).toEqual({ do: 'cancel' });
    expect(inboxAction('x', ASKER)).toMatchObject({ do: 'refuse', why: expect.stringContaining('queued message') });
    expect(inboxAction('j', ASKER)).toBeNull();
  });

  it('bulk takes every answerable prompt showing exactly the same dialog, on any host', () => {
    const other = row({ id: 'p3', window: '@4', dialog: { ...DIALOG, text: 'Bash command\nls\nDo you want to proceed?' } });
    expect(sameDialog([ASKER, TWIN, QUEUED, other, FAR], ASKER).map((r) => r.id)).toEqual([ASKER.id, TWIN.id, FAR.id]);
  });

  it('after a changed prompt, the new prompt of the same window (and host)', () => {
    const next = row({ id: 'p-new' });
    expect(samePlace([FAR, QUEUED, next], ASKER)).toBe(next);
    expect(samePlace([row({ id: 'p-x', host: 'box' })], ASKER)).toBeUndefined();
  });
});

describe('fleet rows', () => {
  it("a host's refusal keeps its words and, from exit 7, the code that selects the new prompt", () => {
    const e = hostError('box', ['answer', '@7', '1', '--prompt', 'p9'], 7, 'nerdr: the prompt changed: remote (@7) now shows prompt p10\x1b[2J\n  fix: read it\n');
    expect(e.code).toBe('prompt_changed');
    expect(e.message).toBe('box: the prompt changed: remote (@7) now shows prompt p10^[[2J');
    expect(hostError('box', ['inbox', 'snooze', 'x', '900s'], 255, 'ssh: connect to host box: Connection refused\n').message).toBe('box: ssh: connect to host box: Connection refused');
    expect(hostError('box', ['send'], 1, '').message).toBe('box: exit 1');
  });
});

interface Calls {
  inbox: number;
  answer: [string, AnswerChoice][];
  snooze: [string, number][];
  cancel: string[];
  stop: string[];
  jump: string[];
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

let cleanup: (() => void)[] = [];
afterEach(() => {
  cleanup.forEach((f) => f());
  cleanup = [];
});

/** A dashboard on a fake screen whose inbox is `rows()` each time it is read. */
function open(rows: () => InboxRow[], answer?: (r: InboxRow, c: AnswerChoice) => Promise<void>) {
  const fs = fakeScreen(110, 30);
  cleanup.push(fs.destroy);
  const calls: Calls = { inbox: 0, answer: [], snooze: [], cancel: [], stop: [], jump: [] };
  const actions: DashActions = {
    read: async (t) => `screen of ${t}\n`,
    send: async () => undefined,
    stop: async (t) => void calls.stop.push(t),
    hibernate: async () => undefined,
    wake: async () => undefined,
    newAgent: async () => '@9',
    jump: async (r) => void calls.jump.push(r.target),
    inbox: async () => {
      calls.inbox++;
      return rows();
    },
    answer: async (r, c) => {
      calls.answer.push([r.id, c]);
      await answer?.(r, c);
    },
    snooze: async (r, ms) => void calls.snooze.push([r.id, ms]),
    cancel: async (r) => void calls.cancel.push(r.message!.id),
  };
  const dash = new Dashboard({ screen: fs.screen, actions, now: () => NOW, tickMs: 0, home: '/home/me' });
  const text = () => screenText(fs.screen).join('\n');
  return { ...fs, dash, calls, text };
}

describe('the dashboard opens on the inbox', () => {
  it('lists the rows, previews the selected prompt in full, and follows the selection', async () => {
    const d = open(() => [ASKER, QUEUED, DONE]);
    await settle();
    const t = d.text();
    expect(t).toContain('inbox 3');
    expect(t).toMatch(/blocked\s+1m\s+asker\s+Do you want to proceed\?/);
    expect(t).toMatch(/queued\s+20s\s+asker\s+#1 first note/);
    expect(t).toContain('rm -rf build/ && npm run build');
    expect(t).toContain('❯ 1. Yes  (approve)');
    expect(t).toContain('1-9/a/A/d answer · B bulk · z/Z snooze · x cancel · enter go · n new · Tab agents · q quit');
    d.key('j', 'j');
    d.key('j', 'j');
    expect(d.text()).toContain('ran 12 tests');
  });

  it('1 answers with option 1 and reads the inbox again', async () => {
    let rows = [ASKER];
    const d = open(() => rows);
    await settle();
    const before = d.calls.inbox;
    rows = [];
    d.key('1', '1');
    await settle();
    expect(d.calls.answer).toEqual([[ASKER.id, 1]]);
    expect(d.calls.inbox).toBeGreaterThan(before);
    expect(d.text()).toContain('answered asker: 1. Yes');
    expect(d.text()).toContain('nothing waits for you');
  });

  it("a key the dialog has no option for says so and answers nothing", async () => {
    const d = open(() => [ASKER]);
    await settle();
    d.key('S-a', 'A'); // blessed's name for a capital
    await settle();
    expect(d.calls.answer).toEqual([]);
    expect(d.text()).toContain('the dialog has no always option');
  });

  it('a changed prompt shows in the status line, the new prompt selected', async () => {
    const next = row({ id: 'p-new', dialog: { ...DIALOG, text: 'Bash command\nnpm test\nDo you want to proceed?' } });
    let rows = [DONE, ASKER];
    const d = open(
      () => rows,
      async () => {
        rows = [DONE, next];
        throw new NerdrError('the prompt changed: asker (@1) now shows prompt p-new: Do you want to proceed?', undefined, { code: 'prompt_changed' });
      },
    );
    await settle();
    d.key('j', 'j'); // asker's prompt, after the done row
    d.key('a', 'a');
    await settle();
    expect(d.text()).toContain('not answered: the prompt changed: asker (@1) now shows prompt p-new');
    expect(d.dash.selectedPrompt()?.id).toBe('p-new');
    expect(d.text()).toContain('npm test');
  });

  it('B asks which option, then confirms with the count, then answers each prompt showing the same dialog', async () => {
    const d = open(() => [ASKER, TWIN, QUEUED]);
    await settle();
    d.key('S-b', 'B'); // blessed's name for a capital
    expect(d.text()).toContain('answer every prompt showing this dialog with which option?');
    d.key('1', '1');
    expect(d.text()).toContain('answer 2 prompts showing this dialog with 1. Yes?');
    expect(d.calls.answer).toEqual([]);
    d.key('y', 'y');
    await settle();
    expect(d.calls.answer).toEqual([
      [ASKER.id, 1],
      [TWIN.id, 1],
    ]);
    expect(d.text()).toContain('answered 2 prompts: 1. Yes');
    // any other key than y answers none
    d.key('S-b', 'B'); // blessed's name for a capital
    d.key('a', 'a');
    d.key('n', 'n');
    await settle();
    expect(d.calls.answer).toHaveLength(2);
  });

  it('z snoozes 15 minutes; Z asks how long', async () => {
    const d = open(() => [DONE]);
    await settle();
    d.key('z', 'z');
    await settle();
    expect(d.calls.snooze).toEqual([[DONE.id, SNOOZE_MS]]);
    d.key('S-z', 'Z'); // blessed's name for a capital
    await settle();
    for (const ch of '2h') d.key(ch, ch);
    d.key('enter', '\r');
    d.key('return', '\r');
    await settle();
    expect(d.calls.snooze.at(-1)).toEqual([DONE.id, 2 * 3600_000]);
    expect(d.calls.jump).toEqual([]); // the Enter that ended the input is not also a jump
  });

  it('x cancels a queued message after y, keeps it on any other key', async () => {
    const d = open(() => [QUEUED]);
    await settle();
    d.key('x', 'x');
    expect(d.text()).toContain('cancel the message queued for asker?');
    d.key('n', 'n');
    await settle();
    expect(d.calls.cancel).toEqual([]);
    d.key('x', 'x');
    d.key('y', 'y');
    await settle();
    expect(d.calls.cancel).toEqual(['m-1']);
    expect(d.text()).toContain('message for asker cancelled');
  });

  it('Tab goes to the agent list, whose x still stops an agent', async () => {
    const d = open(() => [ASKER]);
    d.dash.update([{ name: 'asker', agent: 'demo', state: 'blocked', stateSince: NOW, session: 'work', sessions: ['work'], window: '@1', windowIndex: 1, pane: '%1', cwd: '/srv', id: 'id-1', exitStatus: null, background: false } as unknown as AgentInfo]);
    await settle();
    d.key('tab');
    await settle();
    expect(d.text()).toContain('enter go · s send · n new · x stop · z hibernate/wake · Tab inbox');
    expect(d.text()).toContain('screen of @1');
    d.key('x', 'x');
    d.key('y', 'y');
    await settle();
    expect(d.calls.stop).toEqual(['@1']);
    d.key('tab');
    await settle();
    expect(d.text()).toContain('Do you want to proceed?');
    // enter on an inbox row goes to its agent
    d.key('enter', '\r');
    await d.dash.done;
    expect(d.calls.jump).toEqual(['@1']);
  });

  it("blessed tags in an agent's text show as text", async () => {
    const evil = row({ name: '{bold}boss{/bold}', summary: '{red-fg}approve me{/red-fg}', dialog: { ...DIALOG, text: '{inverse}hidden{/inverse}' } });
    const d = open(() => [evil]);
    await settle();
    expect(d.text()).toContain('{bold}boss{/bold}');
    expect(d.text()).toContain('{red-fg}approve me{/red-fg}');
    expect(d.text()).toContain('{inverse}hidden{/inverse}');
  });

  it('reads the inbox once more, not once per event, while a read is out', async () => {
    let release: () => void = () => undefined;
    const d = open(() => [ASKER]);
    await settle();
    const n = d.calls.inbox;
    const slow = d.dash as unknown as { actions: DashActions };
    const inner = slow.actions.inbox;
    slow.actions.inbox = () => new Promise((r) => (release = () => r(inner()))).then((x) => x as InboxRow[]);
    for (let i = 0; i < 5; i++) d.dash.refreshInbox();
    release();
    await settle();
    release();
    await settle();
    expect(d.calls.inbox - n).toBe(2);
  });
});
