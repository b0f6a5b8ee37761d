// `nerdr walkthrough` end to end: a step written from inside an agent window of a worktree (file
// relative to the window's folder), steps appended as `why` appends them (fields, lock), and
// `--show` printing a window's tour in order, by name, from the window itself, or as JSON.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NERDR_BIN, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';

interface Step { time: string; agent: string | null; name: string | null; window: string | null; pane: string | null; conversation: string | null; cwd: string; text: string; file: string | null; line: number | null }

describe.skipIf(!tmuxAvailable)('nerdr walkthrough', () => {
  let env: LiveEnv;
  let root: string;
  let repo: string;
  let where: string;
  let win: string;
  let pane: string;
  const file = () => path.join(env.home, '.local', 'share', 'nerdr', 'walkthrough.jsonl');
  const steps = (): Step[] => (existsSync(file()) ? readFileSync(file(), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Step) : []);
  const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  beforeAll(async () => {
    env = await startLiveEnv();
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'nerdr-walk-')));
    repo = path.join(root, 'app');
    mkdirSync(path.join(repo, 'src'), { recursive: true });
    git(repo, 'init', '-q');
    git(repo, 'config', 'user.email', 't@example.com');
    git(repo, 'config', 'user.name', 'T');
    writeFileSync(path.join(repo, 'src', 'app.ts'), 'one\ntwo\nthree\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'first');
    where = path.join(root, 'app.worktrees', 'tour');
    // the agent writes its first step itself, from a subfolder of its worktree
    const step = `cd src && ${JSON.stringify(process.execPath)} ${JSON.stringify(NERDR_BIN)} walkthrough --file app.ts --line 2 'the parser starts here'; exec sleep 300`;
    const r = await env.nerdrWith(['new', '-d', '--worktree', 'tour', '--cmd', step], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    win = r.stdout.trim();
    pane = (await env.tmuxOk('display', '-p', '-t', win, '#{pane_id}')).trim();
  });

  afterAll(async () => {
    await env?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('a step from inside the agent window: the why fields, plus file and line relative to the window\'s folder', async () => {
    const [s] = await waitFor(() => steps().length === 1 && steps(), { what: 'the step written in the window' });
    expect(Object.keys(s!)).toEqual(['time', 'agent', 'name', 'window', 'pane', 'conversation', 'cwd', 'text', 'file', 'line']);
    expect(s).toMatchObject({ name: 'tour', window: win, pane, cwd: path.join(where, 'src'), text: 'the parser starts here', file: 'src/app.ts', line: 2 });
  });

  it('more steps, from the agent\'s pane, appended whole under the lock and shown in order', async () => {
    const asAgent = (...args: string[]) => env.nerdrWith(['walkthrough', ...args], { env: { TMUX_PANE: pane }, cwd: where });
    const r = await asAgent('--file', 'src/app.ts', '--line', '3', '--json', 'then', 'it', 'ends');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ text: 'then it ends', file: 'src/app.ts', line: 3, window: win });
    const piped = await env.nerdrWith(['walkthrough'], { env: { TMUX_PANE: pane }, cwd: where, input: 'a step from stdin\n' });
    expect(piped.code, piped.stderr).toBe(0);
    const many = await Promise.all(Array.from({ length: 6 }, (_, i) => asAgent(`parallel ${i}`)));
    for (const m of many) expect(m.code, m.stderr).toBe(0);
    expect(steps()).toHaveLength(9);

    const show = await env.nerdr('walkthrough', '--show', 'tour');
    expect(show.code, show.stderr).toBe(0);
    const lines = show.stdout.split('\n');
    expect(lines[0]).toBe('1. src/app.ts:2  the parser starts here');
    expect(lines[1]).toBe('2. src/app.ts:3  then it ends');
    expect(lines[2]).toBe('3. a step from stdin');
    const json = await env.nerdrWith(['walkthrough', '--show', '--json'], { env: { TMUX_PANE: pane } });
    expect(json.code, json.stderr).toBe(0);
    const list = JSON.parse(json.stdout) as Step[];
    expect(list).toHaveLength(9);
    expect(list.slice(3).map((x) => x.text).sort()).toEqual(Array.from({ length: 6 }, (_, i) => `parallel ${i}`));
    expect((await env.nerdr('walkthrough', '--show', win, '--json')).stdout).toBe(json.stdout);
  });

  it('says what is wrong: --line without --file, a bad line, no text, an unknown window', async () => {
    const a = await env.nerdrWith(['walkthrough', '--line', '3', 'x'], { env: { TMUX_PANE: pane } });
    expect(a.code).toBe(1);
    expect(a.stderr).toMatch(/--line goes with --file/);
    const b = await env.nerdrWith(['walkthrough', '--file', 'a', '--line', 'two', 'x'], { env: { TMUX_PANE: pane } });
    expect(b.stderr).toMatch(/--line "two" is not a line number/);
    const c = await env.nerdrWith(['walkthrough', '--file', 'a'], { env: { TMUX_PANE: pane } });
    expect(c.stderr).toMatch(/needs a text/);
    const d = await env.nerdr('walkthrough', '--show', 'nobody');
    expect(d.code).toBe(1);
    expect(d.stderr).toMatch(/no agent "nobody"; agents: tour|no agent "nobody"/);
    const e = await env.nerdr('walkthrough', '--show', '@999');
    expect(e.code, e.stderr).toBe(0);
    expect(e.stdout).toMatch(/no walkthrough for @999 yet/);
    expect(steps()).toHaveLength(9);
  });
});
