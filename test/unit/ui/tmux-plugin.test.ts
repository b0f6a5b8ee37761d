// tmux/nerdr.tmux, sourced into a private tmux server the way TPM runs it (run-shell).

import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const PLUGIN = path.join(ROOT, 'tmux', 'nerdr.tmux');
const CATPPUCCIN_MODULE = path.join(ROOT, 'tmux', 'catppuccin', 'nerdr.conf');

const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const servers: string[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    await run('tmux', ['-L', s, 'kill-server']).catch(() => undefined);
    // tmux 3.3 leaves its socket file behind
    rmSync(path.join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, s), { force: true });
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function server(): Promise<(...args: string[]) => Promise<string>> {
  const name = `nerdr-test-${randomBytes(6).toString('hex')}`;
  servers.push(name);
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: '/usr/bin:/bin' };
  delete env.TMUX;
  const t = async (...args: string[]): Promise<string> => (await run('tmux', ['-L', name, '-f', '/dev/null', ...args], { env })).stdout;
  await t('new-session', '-d', '-s', 'x', '-x', '100', '-y', '30');
  return t;
}

const show = async (t: (...a: string[]) => Promise<string>, opt: string): Promise<string> => (await t('show-option', '-gqv', opt)).replace(/\n$/, '');

describe.skipIf(!hasTmux)('tmux/nerdr.tmux', () => {
  it('adds the light and summary prefixes once, keeping the old values as backups', async () => {
    const t = await server();
    const wsf = await show(t, 'window-status-format');
    await t('set-option', '-g', 'status-right', 'mine\\;'); // "mine;": a bare trailing ; would end the command
    await t('run-shell', PLUGIN);
    await t('run-shell', PLUGIN); // twice: still one prefix
    expect(await show(t, 'window-status-format')).toBe('#{?@nerdr_light,#{E:@nerdr_light} ,}' + wsf);
    expect(await show(t, 'window-status-current-format')).toMatch(/^#\{\?@nerdr_light,#\{E:@nerdr_light\} ,\}/);
    expect(await show(t, 'status-right')).toBe('#{E:@nerdr_summary}mine;');
    expect(await show(t, '@nerdr_saved_window-status-format')).toBe(wsf);
    expect(await show(t, '@nerdr_saved_status-right')).toBe('mine;');
  });

  it("adds nothing where the formats already read the light and summary through catppuccin's options", async () => {
    const t = await server();
    // what catppuccin v2 builds with the native recipe of docs/tmux.md, and its status module
    const wsf = ' #I #[fg=#cdd6f4,bg=#313244] #{?@nerdr_light,#{E:@nerdr_light} ,}#W ';
    await t('set-option', '-g', 'window-status-format', wsf);
    await t('set-option', '-g', 'window-status-current-format', wsf);
    await t('set-option', '-g', '@catppuccin_nerdr_text', ' #{E:@nerdr_summary}');
    await t('set-option', '-g', '@catppuccin_status_nerdr', '#[fg=#11111b,bg=#f9e2af]● #[fg=#cdd6f4,bg=#313244]#{E:@catppuccin_nerdr_text}');
    await t('set-option', '-g', '@catppuccin_status_application', '#[fg=#eba0ac] #{pane_current_command}');
    await t('set-option', '-g', 'status-right', '#{E:@catppuccin_status_application}#{E:@catppuccin_status_nerdr}');
    await t('run-shell', PLUGIN);
    expect(await show(t, 'window-status-format')).toBe(wsf);
    expect(await show(t, 'window-status-current-format')).toBe(wsf);
    expect(await show(t, 'status-right')).toBe('#{E:@catppuccin_status_application}#{E:@catppuccin_status_nerdr}');
    expect(await show(t, '@nerdr_saved_status-right')).toBe('');
    // a status-right whose options do not hold the summary still gets it
    await t('set-option', '-g', 'status-right', '#{E:@catppuccin_status_application} user@host');
    await t('run-shell', PLUGIN);
    expect(await show(t, 'status-right')).toBe('#{E:@nerdr_summary}#{E:@catppuccin_status_application} user@host');
  });

  it('leaves the formats alone with @nerdr-lights off', async () => {
    const t = await server();
    const before = await show(t, 'window-status-format');
    await t('set-option', '-g', '@nerdr-lights', 'off');
    await t('run-shell', PLUGIN);
    expect(await show(t, 'window-status-format')).toBe(before);
  });

  it('binds no key unless asked', async () => {
    const t = await server();
    const before = await t('list-keys');
    await t('run-shell', PLUGIN);
    expect(await t('list-keys')).toBe(before);
  });

  it('binds @nerdr-key-next and @nerdr-key-dash in the prefix table, with nerdr quoted for sh', async () => {
    const t = await server();
    const dir = mkdtempSync(path.join(os.tmpdir(), "nerdr plugin's "));
    dirs.push(dir);
    const bin = path.join(dir, 'nerdr');
    await t('set-option', '-g', '@nerdr-bin', bin);
    await t('set-option', '-g', '@nerdr-key-next', 'N');
    await t('set-option', '-g', '@nerdr-key-dash', 'C-g');
    await t('set-option', '-g', '@nerdr-popup-width', '90%');
    await t('run-shell', PLUGIN);
    const keys = await t('list-keys', '-T', 'prefix');
    const quoted = `'${bin.replace(/'/g, `'\\''`)}'`;
    const next = keys.split('\n').find((l) => / N +run-shell/.test(l)) ?? '';
    const dash = keys.split('\n').find((l) => / C-g +display-popup/.test(l)) ?? '';
    expect(next).toContain('-b');
    expect(dash).toMatch(/-E/);
    expect(dash).toMatch(/-w "?90%"?/);
    expect(dash).toMatch(/-h "?80%"?/);
    // what sh gets: list-keys shows it in tmux quoting; the sh word must be the whole path
    const shWord = (line: string): string => {
      const m = /"((?:[^"\\]|\\.)*)"\s*$/.exec(line);
      return (m ? m[1]! : '').replace(/\\(.)/g, '$1');
    };
    expect(shWord(next)).toBe(`${quoted} next --message`);
    expect(shWord(dash)).toBe(`${quoted} dash`);
    expect(await show(t, '@nerdr-plugin-warnings')).toBe('');
  });

  it('refuses keys tmux binds by default and says so', async () => {
    const t = await server();
    const before = (await t('list-keys', '-T', 'prefix')).split('\n').find((l) => / c +new-window/.test(l));
    await t('set-option', '-g', '@nerdr-key-dash', 'c');
    await t('set-option', '-g', '@nerdr-key-next', 'I');
    await t('run-shell', PLUGIN);
    expect((await t('list-keys', '-T', 'prefix')).split('\n').find((l) => / c +new-window/.test(l))).toBe(before);
    const warnings = await show(t, '@nerdr-plugin-warnings');
    expect(warnings).toContain('@nerdr-key-dash: prefix c is a tmux default');
    expect(warnings).toContain('@nerdr-key-next: prefix I is');
  });

  it("refuses a key the user's config already binds (oh-my-tmux's F), says so on the first attach; rebinds its own", async () => {
    const t = await server();
    await t('bind-key', '-T', 'prefix', 'F', 'display-message', 'mine');
    await t('set-option', '-g', '@nerdr-key-next', 'F');
    await t('set-option', '-g', '@nerdr-key-dash', 'N');
    await t('run-shell', PLUGIN);
    const keys = (await t('list-keys', '-T', 'prefix')).split('\n');
    expect(keys.find((l) => / F +/.test(l))).toMatch(/display-message mine/);
    expect(keys.find((l) => / N +/.test(l))).toMatch(/display-popup/);
    expect(await show(t, '@nerdr-plugin-warnings')).toContain('@nerdr-key-next: prefix F is already bound by your config (display-message mine); not replaced');
    // no client is attached while a config loads: the message waits for the first attach
    expect(await t('show-hooks', '-g', 'client-attached')).toMatch(/display-message -d 10000 .*@nerdr-plugin-warnings/);
    // loading the plugin again (a config reload) keeps nerdr's own binding of N, without a warning for it
    await t('set-option', '-g', '@nerdr-key-next', 'K');
    await t('run-shell', PLUGIN);
    expect((await t('list-keys', '-T', 'prefix')).split('\n').find((l) => / N +/.test(l))).toMatch(/display-popup/);
    expect(await show(t, '@nerdr-plugin-warnings')).toBe('');
  });

  it('a TPM clone that was never built is built on first load, in the background, and says so', async () => {
    const t = await server();
    // a clone without dist/, and an npm that "installs" by making dist/cli/main.js
    const clone = mkdtempSync(path.join(os.tmpdir(), 'nerdr-#clone-'));
    dirs.push(clone);
    mkdirSync(path.join(clone, 'tmux'));
    writeFileSync(path.join(clone, 'tmux', 'nerdr.tmux'), readFileSync(PLUGIN));
    const bin = path.join(clone, 'fakebin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'npm'), '#!/bin/sh\necho "npm $*"; mkdir -p dist/cli && echo built > dist/cli/main.js\n', { mode: 0o755 });
    await t('set-environment', '-g', 'PATH', `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`);
    // run-shell expands formats in its command: the # of the folder is written ## here
    await t('run-shell', `sh ${path.join(clone, 'tmux', 'nerdr.tmux').replace(/#/g, '##')}`);
    const built = path.join(clone, 'dist', 'cli', 'main.js');
    for (const end = Date.now() + 10_000; !existsSync(built) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(built)).toBe(true);
    expect(readFileSync(path.join(clone, '.nerdr-build.log'), 'utf8')).toContain('npm install --no-audit --no-fund');
    // the status option goes once the build is done
    for (const end = Date.now() + 10_000; (await show(t, '@nerdr-plugin-build')) !== '' && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
    expect(await show(t, '@nerdr-plugin-build')).toBe('');
  });

  it('catppuccin module: defines @catppuccin_status_nerdr from catppuccin v2 status_module.conf', async () => {
    const t = await server();
    // a stand-in for catppuccin's utils/status_module.conf: it builds the module from the three options
    const cat = mkdtempSync(path.join(os.tmpdir(), 'catppuccin-'));
    dirs.push(cat);
    mkdirSync(path.join(cat, 'utils'));
    writeFileSync(
      path.join(cat, 'utils', 'status_module.conf'),
      'set -gF "@catppuccin_status_${MODULE_NAME}" "[#{@catppuccin_${MODULE_NAME}_icon}|#{@catppuccin_${MODULE_NAME}_color}|#{@catppuccin_${MODULE_NAME}_text}]"\n',
    );
    await t('set-option', '-g', '@thm_yellow', '#f9e2af');
    await t('set-option', '-g', '@nerdr-catppuccin-dir', cat);
    await t('source-file', CATPPUCCIN_MODULE);
    expect(await show(t, '@catppuccin_status_nerdr')).toBe('[● |#f9e2af| #{E:@nerdr_summary}]');
  });
});
