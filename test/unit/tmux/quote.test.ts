// quote()/command()/escapeFormat()/argvSafe() checked against REAL tmux (private server):
// every hostile value is set as a user option and read back byte for byte.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient, replyText } from '../../../src/tmux/client.js';
import { argvSafe, command, escapeFormat, quote } from '../../../src/tmux/quote.js';
import { newWindowCommands, respawnCommands } from '../../../src/supervisor/create.js';
import { EXIT_STATUS_OPTION } from '../../../src/supervisor/discover.js';
import { startServer, tmuxAvailable, type PrivateServer } from './helpers.js';

const HOSTILE: [string, string][] = [
  ['semicolon', 'a;b'],
  ['trailing semicolon', 'a;'],
  ['lone semicolon', ';'],
  ['escaped semicolon', 'a\\;'],
  ['single quote', "it's"],
  ['double quote', 'say "hi"'],
  ['both quotes', `'"'"`],
  ['format', '#{pane_id}'],
  ['format shell', '#(echo pwned)'],
  ['hash hash', '## #W'],
  ['percent pane', '%3:x'],
  ['percent directive', '%if 1'],
  ['dollar var', '$HOME'],
  ['dollar braces', '${HOME}'],
  ['tilde', '~/x'],
  ['newline', 'line1\nline2'],
  ['trailing newline', 'x\n'],
  ['carriage return', 'a\rb'],
  ['tab', 'a\tb'],
  ['backslash', 'a\\b'],
  ['trailing backslash', 'a\\'],
  ['backslash n', '\\n'],
  ['backslash octal', '\\012'],
  ['backslash dollar', '\\$HOME'],
  ['emoji', '🦊 nerdr ✋'],
  ['wide CJK', '漢字'],
  ['escape', '\x1b[31mred\x1b[0m'],
  ['control bytes', '\x01\x02\x7f'],
  ['mixed control and quotes', `"a'\n$b\\`],
  ['braces', '{ x }'],
  ['leading dash', '-t'],
  ['leading space', '  x  '],
  ['empty', ''],
  ['long', 'x;'.repeat(2000)],
];

describe('quote: pure shape', () => {
  it('uses single quotes for text without control characters', () => {
    expect(quote('a b')).toBe("'a b'");
    expect(quote("it's")).toBe(`'it'\\''s'`);
    expect(quote('')).toBe("''");
  });

  it('never puts a raw line break (or any control byte) on the line', () => {
    for (const [, v] of HOSTILE) expect(quote(v)).not.toMatch(/[\x00-\x1f\x7f]/);
  });

  it('command() quotes every argument, numbers included', () => {
    expect(command('set-option', '-g', '@x', 5)).toBe("set-option '-g' '@x' '5'");
  });
});

describe('escapeFormat / argvSafe: pure', () => {
  it('escapeFormat doubles every #', () => {
    expect(escapeFormat('#{a} ## #(b)')).toBe('##{a} #### ##(b)');
    expect(escapeFormat('plain')).toBe('plain');
  });

  it('argvSafe escapes only a trailing ;', () => {
    expect(argvSafe('a;b')).toBe('a;b');
    expect(argvSafe('a;')).toBe('a\\;');
    expect(argvSafe(';')).toBe('\\;');
    expect(argvSafe('a\\;')).toBe('a\\\\;');
  });
});

describe.skipIf(!tmuxAvailable)('quote round-trips through real tmux', () => {
  let srv: PrivateServer;
  let client: ControlClient;
  let dir: string;

  beforeAll(async () => {
    srv = await startServer();
    client = new ControlClient(srv.socketPath, 'user');
    dir = mkdtempSync(path.join(os.tmpdir(), 'nerdr-quote-'));
  });

  afterAll(async () => {
    await client?.close();
    await srv?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each(HOSTILE)('control-mode line: %s', async (_label, value) => {
    const [set, show] = await client.send([command('set-option', '-g', '@nerdr_q', value), command('show-options', '-gv', '@nerdr_q')]);
    expect(set!.ok, replyText(set!)).toBe(true);
    expect(show!.ok).toBe(true);
    // a reply is split into lines at \n; joined again they are the value
    expect(replyText(show!)).toBe(value);
  });

  it('source-file of a file holding `set -g @x <quoted>` lines gives every value back', async () => {
    const file = path.join(dir, 'values.conf');
    writeFileSync(file, HOSTILE.map(([, v], i) => `${command('set-option', '-g', `@nerdr_f${i}`, v)}\n`).join(''));
    await srv.tmux('source-file', file);
    for (const [i, [label, v]] of HOSTILE.entries()) {
      const out = await srv.tmux('show-options', '-gv', `@nerdr_f${i}`);
      expect(out.slice(0, -1), label).toBe(v); // show -v ends the value with one \n
    }
  });

  it('one-shot argv with argvSafe gives every value back (trailing ; included)', async () => {
    for (const [label, v] of HOSTILE) {
      await srv.tmux('set-option', '-g', '@nerdr_a', argvSafe(v));
      const out = await srv.tmux('show-options', '-gv', '@nerdr_a');
      expect(out.slice(0, -1), label).toBe(v);
    }
  });

  it('without argvSafe a trailing ; is eaten by tmux (why argvSafe exists)', async () => {
    await srv.tmux('set-option', '-g', '@nerdr_b', 'x;');
    expect((await srv.tmux('show-options', '-gv', '@nerdr_b')).slice(0, -1)).toBe('x');
  });

  it('a NUL cannot travel: tmux strings end there (callers must not pass one)', async () => {
    const [set, show] = await client.send([command('set-option', '-g', '@nerdr_z', 'a\0b'), command('show-options', '-gv', '@nerdr_z')]);
    expect(set!.ok).toBe(true);
    expect(replyText(show!)).toBe('a');
  });

  it('escapeFormat keeps #{…}, #(…) and ## literal in a window name (rename-window and new-window -n)', async () => {
    const names = ['#{pane_id}', '#(echo pwned) ##', "a;b 'q' \"d\" $HOME 🦊", '%3:x'];
    for (const name of names) {
      const [r, n] = await client.send([
        command('rename-window', '-t', '=user:0', escapeFormat(name)),
        command('display', '-p', '-t', '=user:0', '#{window_name}'),
      ]);
      expect(r!.ok, replyText(r!)).toBe(true);
      // rename-window (not new-window) passes the name through tmux's vis(): `$HOME` → `\$HOME`
      expect(replyText(n!)).toBe(name.replace(/\$(?=\w)/g, '\\$'));
      const [nw] = await client.send([command('new-window', '-d', '-t', '=user:', '-n', escapeFormat(name), '-P', '-F', '#{window_id}', 'sleep 30')]);
      expect(nw!.ok, replyText(nw!)).toBe(true);
      const id = replyText(nw!).trim();
      expect(await client.run(command('display', '-p', '-t', id, '#{window_name}'))).toBe(name);
      await client.run(command('kill-window', '-t', id));
    }
  });

  it('rename-window makes control characters in a name visible (\\n, \\t); new-window -n keeps them raw', async () => {
    const [r, n] = await client.send([command('rename-window', '-t', '=user:0', escapeFormat('a\nb\tc')), command('display', '-p', '-t', '=user:0', '#{window_name}')]);
    expect(r!.ok).toBe(true);
    expect(replyText(n!)).toBe('a\\nb\\tc');
    // new-window -n stores the name as given: a raw line break then splits any
    // list-windows/list-panes -F row that holds #{window_name} (see the live foundation test)
    const [nw, name] = await client.send([
      command('new-window', '-d', '-t', '=user:', '-n', 'a\nb\tc', '-P', '-F', '#{window_id}', 'sleep 30'),
      command('display', '-p', '-t', '=user:{end}', '#{window_name}'),
    ]);
    expect(nw!.ok, replyText(nw!)).toBe(true);
    expect(replyText(name!)).toBe('a\nb\tc');
    await client.run(command('kill-window', '-t', replyText(nw!).trim()));
  });

  // The folder arguments tmux expands as formats (spawn.c): each builder's, with a hostile folder.
  const FOLDERS = ['#(touch pwned)', '#{pane_id}', '#S #W ##', "semi; 'q' \"d\" $HOME", 'tab\there', 'line\nbreak'];

  /** The pane's folder once its program runs there (right after a spawn tmux may not know it yet). */
  async function paneFolder(pane: string, want: string): Promise<string> {
    let last = '';
    for (const end = Date.now() + 5000; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
      last = await client.run(command('display', '-p', '-t', pane, '#{pane_current_path}'));
      if (last === want) break;
    }
    return last;
  }

  it.each(FOLDERS)('new-window -c / -n from newWindowCommands: folder %j is literal', async (leaf) => {
    const cwd = path.join(dir, leaf);
    mkdirSync(cwd, { recursive: true });
    if ((await client.send([command('has-session', '-t', '=_nerdr')]))[0]!.ok === false) await client.run(command('new-session', '-d', '-s', '_nerdr', 'sleep 60'));
    const cmds = newWindowCommands({ agent: 'unknown', name: leaf, cwd, session: 'user', argv: ['sleep', '30'], userArgs: [], env: {}, watched: true, id: 'a1', secretHash: 'h' });
    const replies = await client.send(cmds.slice(0, 1));
    expect(replies[0]!.ok, replyText(replies[0]!)).toBe(true);
    const pane = replyText(replies[0]!).split(' ')[1]!;
    expect(await paneFolder(pane, cwd)).toBe(cwd);
    expect(await client.run(command('display', '-p', '-t', pane, '#{window_name}'))).toBe(leaf);
    // respawn-pane -c: the same folder again
    // (after the exit guard's status is cleared: the last program's is not the next one's)
    await client.run(command('set-option', '-p', '-t', pane, EXIT_STATUS_OPTION, '3'));
    const [u, r] = await client.send(respawnCommands(pane, replyText(replies[0]!).split(' ')[0]!, cwd, ['sleep', '31'], {}, 'h').slice(2));
    expect(u!.ok, replyText(u!)).toBe(true);
    expect(r!.ok, replyText(r!)).toBe(true);
    expect(await client.run(command('display', '-p', '-t', pane, `#{${EXIT_STATUS_OPTION}}`))).toBe('');
    expect(await paneFolder(pane, cwd)).toBe(cwd);
    await client.run(command('kill-pane', '-t', pane));
    expect(existsSync(path.join(process.cwd(), 'pwned'))).toBe(false);
  });

  it('one-shot new-session -s / -c (restore): argvSafe(escapeFormat(…)) keeps both literal', async () => {
    const name = 'ev#(touch pwned)#{pane_id};';
    const cwd = path.join(dir, 'end;');
    mkdirSync(cwd, { recursive: true });
    // session_path is the -c value as tmux took it; the pane's own folder is read once its
    // program runs (right after the spawn tmux may not know it yet, and prints it empty).
    const out = await srv.tmux('new-session', '-d', '-s', argvSafe(escapeFormat(name)), '-c', argvSafe(escapeFormat(cwd)), '-P', '-F', '#{session_name}|#{session_path}|#{pane_id}');
    const [gotName, gotPath, pane] = out.trim().split('|');
    expect(`${gotName}|${gotPath}`).toBe(`${name}|${cwd}`);
    expect(await paneFolder(pane!, cwd)).toBe(cwd);
    await srv.tmux('kill-session', '-t', argvSafe(`=${name}`));
  });

  it('escapeFormat also keeps a display -p template built from user text literal', async () => {
    const text = '#{session_name} ## #W';
    expect(await client.run(command('display', '-p', escapeFormat(text)))).toBe(text);
  });
});
