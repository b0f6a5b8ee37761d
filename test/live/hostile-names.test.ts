// Folders and session names that tmux could read as formats (`#(cmd)` runs a command, `#{…}` and
// `#S` expand) or as command separators (an argument ending in `;`), and folders holding tabs and
// line breaks: every one must reach tmux and the file system literally, through `new`, `term`,
// the saved sessions and `restore`.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionBase, type SavedSession } from '../../src/store/sessions.js';
import { NERDR_BIN, pidAlive, run, startLiveEnv, tmuxAvailable, waitFor, type LiveEnv } from './helpers/env.js';

describe.skipIf(!tmuxAvailable)('hostile folder and session names reach tmux literally', () => {
  let env: LiveEnv;
  let root: string;
  let pwned: string;
  let formatDir: string;
  let semiDir: string;
  let tabDir: string;
  let nlDir: string;
  // a session name with a command in it (tmux would run it when expanding the name)
  let evil: string;

  // right after a spawn tmux may not know the pane's folder yet: wait for it, show the last seen
  const paneCwd = async (target: string, want: string): Promise<string> => {
    let last = '';
    try {
      await waitFor(async () => (last = (await env.tmuxOk('display', '-p', '-t', target, '#{pane_current_path}')).replace(/\n$/, '')) === want, { timeoutMs: 5000 });
    } catch {
      /* the expect below shows it */
    }
    return last;
  };
  const saved = (session: string): SavedSession | null => {
    try {
      return JSON.parse(readFileSync(path.join(env.stateDir, 'sessions', `${sessionBase(env.socketPath, session)}.json`), 'utf8')) as SavedSession;
    } catch {
      return null;
    }
  };

  beforeAll(async () => {
    root = path.join(os.tmpdir(), `nerdr-hostile-${process.pid}-${Date.now().toString(36)}`);
    pwned = path.join(root, 'pwned');
    formatDir = path.join(root, `x#(touch ${pwned})#{pane_id}#S`);
    semiDir = path.join(root, 'semi;');
    tabDir = path.join(root, 'tab\there');
    nlDir = path.join(root, 'line\nbreak');
    for (const d of [formatDir, semiDir, tabDir, nlDir]) mkdirSync(d, { recursive: true });
    evil = `ev#(touch ${pwned}-session)`;
    env = await startLiveEnv();
    // created literally (## is tmux's own escape), as a user's `tmux new -s` with such a name would be
    await env.tmuxOk('new-session', '-d', '-s', evil.replace(/#/g, '##'));
    expect(await env.tmuxOk('list-sessions', '-F', '#{session_name}')).toContain(evil);
  });

  afterAll(async () => {
    await env?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('new --cwd with #(…), #{…} and #S: the pane starts in that folder, nothing runs', async () => {
    const r = await env.nerdr('new', '-d', '-t', 'user', '--name', 'fmt', '--cwd', formatDir, '--cmd', 'sleep 100');
    expect(r.code, r.stderr).toBe(0);
    const win = r.stdout.trim();
    expect(await paneCwd(win, formatDir)).toBe(formatDir);
    const row = await waitFor(async () => (await env.lsJson()).find((a) => a.name === 'fmt'), { what: 'fmt in ls' });
    expect(row.cwd).toBe(formatDir);
    expect(existsSync(pwned)).toBe(false);
  });

  it('term --cwd with #(…): literal too', async () => {
    const r = await env.nerdr('term', '-d', '-t', 'user', '--name', 'plain', '--cwd', formatDir, 'sleep', '100');
    expect(r.code, r.stderr).toBe(0);
    expect(await paneCwd(r.stdout.trim(), formatDir)).toBe(formatDir);
    expect(existsSync(pwned)).toBe(false);
  });

  it('a window name with #(…) stays literal', async () => {
    const name = `n#(touch ${pwned}-name)#{pane_id}`;
    const r = await env.nerdr('new', '-d', '-t', 'user', '--name', name, '--cmd', 'sleep 100');
    expect(r.code, r.stderr).toBe(0);
    expect((await env.tmuxOk('display', '-p', '-t', r.stdout.trim(), '#{window_name}')).trim()).toBe(name);
    expect(existsSync(`${pwned}-name`)).toBe(false);
  });

  it('a folder whose name is not UTF-8 is refused with the reason and a way out', async () => {
    // Node cannot pass such bytes as an argument, so a fixed shell script makes and names the folder
    const script = 'd="$1/$(printf "bad\\377")"; mkdir -p "$d"; shift; exec "$@" --cwd "$d" --cmd "sleep 100"';
    const res = await run('/bin/sh', ['-c', script, 'sh', root, process.execPath, NERDR_BIN, '-L', env.server, 'new', '-d', '-t', 'user'], { env: env.env });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/is not UTF-8 text/);
    expect(res.stderr).toMatch(/fix: rename the folder/);
  });

  it('folders holding a tab or a line break are watched and saved', async () => {
    for (const [name, dir] of [['tabbed', tabDir], ['broken', nlDir]] as const) {
      const r = await env.nerdr('new', '-d', '-t', 'user', '--name', name, '--cwd', dir, '--cmd', 'sleep 100');
      expect(r.code, r.stderr).toBe(0);
      expect(await paneCwd(r.stdout.trim(), dir)).toBe(dir);
    }
    const rows = await waitFor(async () => {
      const ls = await env.lsJson();
      return ls.some((a) => a.name === 'tabbed') && ls.some((a) => a.name === 'broken') && ls;
    }, { what: 'both windows watched' });
    expect(rows.find((a) => a.name === 'tabbed')!.cwd).toBe(tabDir);
    expect(rows.find((a) => a.name === 'broken')!.cwd).toBe(nlDir);
    // every later save of the session still works, with the folders exact
    const s = await waitFor(() => {
      const x = saved('user');
      return x && x.windows.some((w) => w.name === 'tabbed') && x.windows.some((w) => w.name === 'broken') && x;
    }, { what: 'the user session saved with both windows' });
    expect(s.windows.find((w) => w.name === 'tabbed')!.cwd).toBe(tabDir);
    expect(s.windows.find((w) => w.name === 'broken')!.cwd).toBe(nlDir);
  });

  it('a session holding only --cmd windows is saved, and restore brings back #(…) session names and `;` folders literally', async () => {
    // --idle-after 600: the quiet rule gives up on `sleep` (no prompt) only after 10 minutes, so the
    // queued message stays queued until the restore (after 3 s, the default, it would be dropped)
    for (const [name, dir] of [['semi', semiDir], ['fmt2', formatDir]] as const) {
      const r = await env.nerdr('new', '-d', '-t', evil, '--name', name, '--cwd', dir, '--idle-after', '600', '--cmd', 'sleep 100');
      expect(r.code, r.stderr).toBe(0);
    }
    const q = await env.nerdr('send', 'fmt2', 'kept through the restore');
    expect(q.code, q.stderr).toBe(0);
    await waitFor(() => {
      const x = saved(evil);
      return x && x.windows.length === 2 && x.windows.some((w) => w.queue.length === 1);
    }, { what: 'the --cmd-only session saved with its queued message' });
    await waitFor(() => saved('user')?.windows.length === 4, { what: 'the user session saved' });

    const sup = await env.supervisorPid();
    await env.tmux('kill-server');
    if (sup) await waitFor(() => !pidAlive(sup), { what: 'the supervisor to exit with its server' });

    const r = await env.nerdrWith(['restore', '--json'], { timeoutMs: 60_000 });
    // --json says a failed window on stdout (its reason, the supervisor's log) and exits 1
    expect(r.code, `${r.stderr}${r.stdout}\n${env.supervisorLog().split('\n').slice(-40).join('\n')}`).toBe(0);
    const out = JSON.parse(r.stdout) as { windows: { session: string; name: string; action: string; requeued: number }[] };
    expect(out.windows.map((w) => `${w.session}/${w.name}:${w.action}`).sort()).toEqual(
      [`${evil}/fmt2:created`, `${evil}/semi:created`, 'user/broken:created', 'user/fmt:created', 'user/n#(touch ' + pwned + '-name)#{pane_id}:created', 'user/tabbed:created'].sort(),
    );
    expect(out.windows.find((w) => w.name === 'fmt2')!.requeued).toBe(1);
    expect(await env.tmuxOk('list-sessions', '-F', '#{session_name}')).toContain(evil);
    const rows = await waitFor(async () => {
      const ls = await env.lsJson();
      return ls.length === 6 && ls;
    }, { what: 'six restored windows' });
    for (const [name, dir] of [['semi', semiDir], ['fmt2', formatDir], ['fmt', formatDir], ['tabbed', tabDir], ['broken', nlDir]] as const) {
      const row = rows.find((a) => a.name === name)!;
      expect(row.cwd, name).toBe(dir);
      expect(await paneCwd(row.window, dir), name).toBe(dir);
    }
    expect(rows.find((a) => a.name === 'semi')!.session).toBe(evil);
    expect(existsSync(pwned)).toBe(false);
    expect(existsSync(`${pwned}-session`)).toBe(false);
    expect(existsSync(`${pwned}-name`)).toBe(false);
  });
});

describe.skipIf(!tmuxAvailable)('restore: a folder ending in `;` does not stop the other sessions', () => {
  let env: LiveEnv;
  let root: string;

  beforeAll(async () => {
    root = path.join(os.tmpdir(), `nerdr-semi-${process.pid}-${Date.now().toString(36)}`);
    mkdirSync(path.join(root, 'semi;'), { recursive: true });
    env = await startLiveEnv();
  });

  afterAll(async () => {
    await env?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('every saved session is restored, and the queued messages of the first are re-queued', async () => {
    const dir = path.join(env.stateDir, 'sessions');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const win = (name: string, cwd: string, queue: SavedSession['windows'][number]['queue'] = []) => ({
      agent: 'unknown', name, index: 1, cwd, args: [], argv: ['/bin/sh', '-c', 'sleep 100'], conversationId: null, conversationFrom: null, queue,
    });
    const sessions: [string, ReturnType<typeof win>][] = [
      ['aa-queue', win('first', root, [{ id: 'm1', text: 'still here', queuedAt: Date.now() }])],
      ['bb-semi', win('semi', path.join(root, 'semi;'))],
      ['cc-after', win('after', root)],
    ];
    const { writeFileSync } = await import('node:fs');
    for (const [session, w] of sessions) {
      const s: SavedSession = { version: 1, server: env.socketPath, session, savedAt: new Date().toISOString(), windows: [w] };
      writeFileSync(path.join(dir, `${sessionBase(env.socketPath, session)}.json`), JSON.stringify(s));
    }
    const r = await env.nerdrWith(['restore', '--json'], { timeoutMs: 60_000 });
    // --json says a failed window on stdout (its reason, the supervisor's log) and exits 1
    expect(r.code, `${r.stderr}${r.stdout}\n${env.supervisorLog().split('\n').slice(-40).join('\n')}`).toBe(0);
    const out = JSON.parse(r.stdout) as { windows: { session: string; name: string; action: string; requeued: number }[] };
    expect(out.windows.map((w) => `${w.session}/${w.name}:${w.action}`).sort()).toEqual(['aa-queue/first:created', 'bb-semi/semi:created', 'cc-after/after:created']);
    expect(out.windows.find((w) => w.name === 'first')!.requeued).toBe(1);
    const semi = await waitFor(async () => (await env.lsJson()).find((a) => a.name === 'semi'), { what: 'semi watched' });
    expect(semi.cwd).toBe(path.join(root, 'semi;'));
    let last = '';
    await waitFor(async () => (last = (await env.tmuxOk('display', '-p', '-t', semi.window, '#{pane_current_path}')).trim()) === path.join(root, 'semi;'), { what: `semi's folder (last: ${last})` });
  });
});
