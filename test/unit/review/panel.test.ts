import { afterEach, describe, expect, it } from 'vitest';
import { ReviewPanel, screenText, type ReviewActions } from '../../../src/review/panel.js';
import { parseDiff } from '../../../src/review/diff.js';
import type { ReviewData } from '../../../src/review/data.js';
import type { ReviewFile } from '../../../src/review/git.js';
import { fakeScreen } from '../ui/screen.js';
import { commentMessage } from '../../../src/review/comment.js';

const file = (over: Partial<ReviewFile>): ReviewFile => ({ path: 'a.ts', from: null, kind: 'unstaged', status: 'M', added: 1, removed: 1, ...over });

function data(over: Partial<ReviewData> = {}): ReviewData {
  return {
    window: '@1',
    windowName: 'fix',
    session: '$1',
    agent: { name: 'fix', agent: 'claude', state: 'working' },
    folder: '/repo',
    repo: '/repo',
    gitDir: '/repo/.git',
    problem: null,
    worktree: null,
    branch: 'fix',
    head: 'abc',
    base: 'main',
    ahead: 2,
    behind: 1,
    files: [file({ kind: 'staged', path: 'src/s.ts', status: 'A' }), file({ path: 'src/u.ts', added: 3, removed: 0 }), file({ kind: 'untracked', path: 'new.md', status: '?' })],
    steps: [{ kind: 'step', time: 't1', text: 'look at the loop', file: '/repo/src/u.ts', line: 40 }],
    why: [{ kind: 'why', time: 't2', text: 'because the old loop was quadratic', file: null, line: null }],
    shared: [],
    tookMs: 1,
    ...over,
  };
}

function longDiff(name: string): string {
  const body = Array.from({ length: 60 }, (_, i) => ` line ${i + 1}`);
  body[39] = `+changed line 40 of ${name}`;
  return `diff --git a/${name} b/${name}\n--- a/${name}\n+++ b/${name}\n@@ -1,60 +1,60 @@\n${body.join('\n')}\n`;
}

function setup(cols = 60, rows = 40) {
  const s = fakeScreen(cols, rows);
  const calls = { diff: [] as string[], steps: [] as string[], edit: [] as [string, number | null][], refresh: 0, comments: [] as string[] };
  const actions: ReviewActions = {
    fileDiff: async (_d, f) => {
      calls.diff.push(`${f.kind}:${f.path}`);
      return { text: longDiff(f.path), more: 0 };
    },
    stepRows: async (_d, n) => {
      calls.steps.push(n.text);
      return parseDiff(longDiff('src/u.ts'));
    },
    edit: async (_d, f, l) => void calls.edit.push([f, l]),
    refresh: () => void calls.refresh++,
    comment: async (_d, place, text) => {
      calls.comments.push(commentMessage(place, text));
      return 'queued';
    },
  };
  const panel = new ReviewPanel({ screen: s.screen, actions });
  return { ...s, panel, calls, text: () => screenText(s.screen).join('\n') };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('comments on a line', () => {
  it('one message: path:line: comment, the hunk and the line quoted', () => {
    expect(commentMessage({ file: 'src/a.ts', line: 12, text: 'const x = parse(input)  ', hunk: '@@ -10,4 +10,5 @@ function go' }, ' rename x ')).toBe(
      'src/a.ts:12: rename x\n  in @@ -10,4 +10,5 @@ function go\n  12 | const x = parse(input)',
    );
    expect(commentMessage({ file: 'b.md', line: 1, text: null, hunk: null }, 'why?')).toBe('b.md:1: why?');
    expect(commentMessage({ file: 'm.js', line: 1, text: 'x'.repeat(500), hunk: null }, 'long').split('\n')[1]!.length).toBeLessThan(260);
  });
});

describe('ReviewPanel', () => {
  let env: ReturnType<typeof setup> | null = null;
  afterEach(() => {
    env?.destroy();
    env = null;
  });

  it('shows the agent, branch against base, the files by kind and the first file’s diff', async () => {
    env = setup();
    env.panel.show(data());
    await tick();
    const t = env.text();
    expect(t).toContain('fix · claude · working');
    expect(t).toContain('fix ← main ↑2 ↓1');
    expect(t).toMatch(/staged \(1\)[\s\S]*A src\/s\.ts[\s\S]*unstaged \(1\)[\s\S]*M src\/u\.ts\s+\+3 -0[\s\S]*untracked \(1\)/);
    expect(t).toContain('walkthrough (1)');
    expect(t).toContain('1. src/u.ts:40 look at the loop');
    expect(t).toContain('· because the old loop');
    expect(env.calls.diff).toEqual(['staged:src/s.ts']);
    expect(t).toContain('src/s.ts (staged)');
    expect(t).not.toContain('diff --git');
    expect(t).toContain('e edit');
  });

  it('moves the selection with j/k and shows that file’s diff; enter lets the diff scroll', async () => {
    env = setup();
    env.panel.show(data());
    await tick();
    env.key('j');
    await tick();
    expect(env.calls.diff.at(-1)).toBe('unstaged:src/u.ts');
    expect(env.text()).toContain('src/u.ts (unstaged)');
    expect(env.text()).toContain(' line 1');
    env.key('enter');
    env.key('pagedown');
    await tick();
    expect(env.text()).not.toMatch(/│ line 1\s/);
    env.key('escape'); // back to the list, not out
    env.key('k');
    await tick();
    expect(env.calls.diff.at(-1)).toBe('staged:src/s.ts');
  });

  it('a walkthrough step shows the diff at its line, marked; e opens the step’s file at that line', async () => {
    env = setup();
    env.panel.show(data());
    await tick();
    env.key('tab');
    await tick();
    expect(env.calls.steps).toEqual(['look at the loop']);
    const t = env.text();
    expect(t).toContain('step 1 · src/u.ts:40');
    expect(t).toContain('+changed line 40 of src/u.ts');
    expect(t).not.toContain(' line 20\n');
    env.key('e');
    await tick();
    expect(env.calls.edit).toEqual([['/repo/src/u.ts', 40]]);
  });

  it('a refresh that lands while a step is being looked up keeps the step, not the file', async () => {
    env = setup();
    env.panel.show(data());
    await tick();
    env.key('tab');
    env.panel.show(data()); // new data for the same window, before the step's diff is back
    await tick();
    await tick();
    expect(env.text()).toContain('step 1 · src/u.ts:40');
  });

  it('a why note shows its whole text', async () => {
    env = setup();
    env.panel.show(data({ why: [{ kind: 'why', time: 't', text: 'first line\nsecond line', file: null, line: null }] }));
    await tick();
    env.key('tab');
    env.key('j');
    await tick();
    expect(env.text()).toContain('second line');
  });

  it('keeps the selected file across a refresh of the same window, starts over on another one', async () => {
    env = setup();
    env.panel.show(data());
    await tick();
    env.key('j');
    await tick();
    env.panel.show(data({ files: [file({ path: 'src/zz.ts' }), ...data().files] }));
    await tick();
    expect(env.calls.diff.at(-1)).toBe('unstaged:src/u.ts');
    env.panel.show(data({ window: '@2', folder: '/other', agent: null, windowName: 'shell' }));
    await tick();
    expect(env.calls.diff.at(-1)).toBe('staged:src/s.ts');
    expect(env.text()).toContain('shell · no agent');
  });

  it('a new agent state with the same data redraws the header and asks for no diff', async () => {
    env = setup();
    const d = data();
    env.panel.show(d);
    await tick();
    const asked = env.calls.diff.length;
    env.panel.show({ ...d, agent: { name: 'fix', agent: 'claude', state: 'done' } });
    await tick();
    expect(env.text()).toContain('fix · claude · done');
    expect(env.calls.diff.length).toBe(asked);
  });

  it('says what is missing: no repository, no changes', async () => {
    env = setup();
    env.panel.show(data({ repo: null, problem: 'no git repository at /tmp/x', files: [], steps: [], why: [] }));
    expect(env.text()).toContain('no git repository at /tmp/x');
    env.panel.show(data({ files: [], steps: [], why: [] }));
    expect(env.text()).toContain('no changes');
  });

  it('fits a narrow pane and redraws on resize; r refreshes, q quits', async () => {
    env = setup(34, 20);
    env.panel.show(data());
    await tick();
    for (const l of screenText(env.screen)) expect([...l].length).toBeLessThanOrEqual(34);
    expect(env.text()).toContain('q quit');
    env.key('r');
    expect(env.calls.refresh).toBe(1);
    let quit = false;
    void env.panel.done.then(() => (quit = true));
    env.key('q');
    await tick();
    expect(quit).toBe(true);
  });

  it('c comments on the line at the top of the diff: typed, queued for the agent with the line and its hunk', async () => {
    env = setup();
    env.panel.show(data());
    await tick();
    env.key('j');
    await tick();
    env.key('enter');
    for (let i = 0; i < 40; i++) env.key('down');
    await tick();
    expect(env.panel.commentPlace()).toEqual({ file: 'src/u.ts', line: 40, text: 'changed line 40 of src/u.ts', hunk: '@@ -1,60 +1,60 @@' });
    env.key('c', 'c');
    await tick(); // blessed's textbox starts reading on the next tick
    for (const ch of 'say why') env.key(ch === ' ' ? 'space' : ch, ch);
    // a real Enter is two keypresses in blessed: 'enter', then 'return'
    env.key('enter', '\r');
    env.key('return', '\r');
    await tick();
    await tick();
    expect(env.calls.comments).toEqual(['src/u.ts:40: say why\n  in @@ -1,60 +1,60 @@\n  40 | changed line 40 of src/u.ts']);
    expect(env.text()).toContain('queued');
    // the keys typed went to the comment, not to the panel
    expect(env.calls.edit).toEqual([]);
  });
});
