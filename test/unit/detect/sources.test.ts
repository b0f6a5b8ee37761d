// Manifest sources, precedence and live reload (manifest-format.md §3, product.md "Places and names").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManifestRegistry } from '../../../src/detect/registry.js';
import { compareVersionStrings, parseVersion } from '../../../src/detect/version.js';
import { defaultBundledDir, resolveSourcePaths } from '../../../src/detect/sources.js';

const manifestText = (id: string, version?: string, engine?: number, extra = '') =>
  `id = "${id}"\n${version ? `version = "${version}"\n` : ''}${engine !== undefined ? `min_engine_version = ${engine}\n` : ''}${extra}` +
  '[[rules]]\nid = "r"\nstate = "working"\ncontains = ["x"]\n';

let root: string;
let home: string;
let bundled: string;
const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};
const nerdrDir = () => path.join(home, '.config/nerdr/agent-detection');
const herdrDir = () => path.join(home, '.config/herdr/agent-detection');
const remoteDir = () => path.join(home, '.local/state/herdr/agent-detection/remote');
const registry = (extra: string[] = [], env: NodeJS.ProcessEnv = {}) =>
  new ManifestRegistry({ env: { HOME: home, ...env }, bundledDir: bundled, extraDirs: extra });

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'nerdr-sources-'));
  home = path.join(root, 'home');
  bundled = path.join(root, 'bundled');
  fs.mkdirSync(home, { recursive: true });
  write(path.join(bundled, 'claude.toml'), manifestText('claude', '2026.6.10', 2));
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe('versions (§3.3)', () => {
  it('parses and compares dotted numbers', () => {
    expect(parseVersion(' 2026.06.10 ')).toEqual([2026n, 6n, 10n]);
    for (const bad of ['2026.06.alpha', '2026..06', '', '1.-2', '99999999999999999999999']) expect(parseVersion(bad), bad).toBeNull();
    expect(compareVersionStrings('2026.06.10', '2026.6.10')).toBe(0);
    expect(compareVersionStrings('1.2', '1.2.0')).toBe(0);
    expect(compareVersionStrings('1.2.1', '1.2')).toBe(1);
    expect(compareVersionStrings('1.10', '1.9')).toBe(1);
  });
});

describe('paths', () => {
  it('honours NERDR_CONFIG_DIR, XDG_CONFIG_HOME and XDG_STATE_HOME', () => {
    const p = resolveSourcePaths({ env: { HOME: '/h', XDG_CONFIG_HOME: '/x', XDG_STATE_HOME: '/s' } });
    expect(p.nerdrConfig).toBe('/x/nerdr/agent-detection');
    expect(p.herdrConfig).toBe('/x/herdr/agent-detection');
    expect(p.herdrRemote[0]).toBe('/s/herdr/agent-detection/remote');
    expect(resolveSourcePaths({ env: { HOME: '/h', NERDR_CONFIG_DIR: '/n' } }).nerdrConfig).toBe('/n/agent-detection');
    expect(resolveSourcePaths({ env: { HOME: '/h' } }).nerdrConfig).toBe('/h/.config/nerdr/agent-detection');
  });
  it('the bundled folder is the repository manifests/ folder', () => {
    expect(fs.existsSync(path.join(defaultBundledDir(), 'claude.toml'))).toBe(true);
  });
});

describe('precedence', () => {
  it('bundled by default', () => {
    const l = registry().get('claude')!;
    expect([l.source, l.version]).toEqual(['bundled', '2026.6.10']);
    expect(registry().get('nope')).toBeUndefined();
  });
  it('herdr downloaded copy: used when version ≥ bundled, else bundled with a note', () => {
    write(path.join(remoteDir(), 'claude.toml'), manifestText('claude', '2026.06.10', 2));
    expect(registry().get('claude')!.source).toBe('herdr-remote'); // equal version → downloaded copy
    write(path.join(remoteDir(), 'claude.toml'), manifestText('claude', '2026.7.1', 2));
    expect(registry().get('claude')!.version).toBe('2026.7.1');
    write(path.join(remoteDir(), 'claude.toml'), manifestText('claude', '2026.5.1', 2));
    const l = registry().get('claude')!;
    expect(l.source).toBe('bundled');
    expect(l.warnings.join()).toMatch(/older than the bundled/);
  });
  it('downloaded copy without version / with a too-new engine is refused', () => {
    write(path.join(remoteDir(), 'claude.toml'), manifestText('claude'));
    let r = registry();
    expect(r.get('claude')!.source).toBe('bundled');
    expect(r.problems()[0]!.reason).toMatch(/version and min_engine_version/);
    write(path.join(remoteDir(), 'claude.toml'), manifestText('claude', '2027.1.1', 9));
    r = registry();
    expect(r.get('claude')!.source).toBe('bundled');
    expect(r.problems()[0]!.reason).toMatch(/engine level 9/);
  });
  it('herdr config override beats the downloaded copy whatever its version; nerdr config beats herdr config', () => {
    write(path.join(remoteDir(), 'claude.toml'), manifestText('claude', '2030.1.1', 2));
    write(path.join(herdrDir(), 'claude.toml'), manifestText('claude', '1.0'));
    expect(registry().get('claude')!.source).toBe('herdr-config');
    write(path.join(nerdrDir(), 'claude.toml'), manifestText('claude-code'));
    const l = registry().get('claude')!;
    expect(l.source).toBe('nerdr-config');
    expect(l.path).toBe(path.join(nerdrDir(), 'claude.toml'));
  });
  it('an invalid or foreign override is reported and the next source is used', () => {
    write(path.join(nerdrDir(), 'claude.toml'), 'id = "claude"\nbogus = 1\n');
    write(path.join(herdrDir(), 'claude.toml'), manifestText('codex'));
    const r = registry();
    expect(r.get('claude')!.source).toBe('bundled');
    const problems = r.problems();
    expect(problems.map((p) => p.source)).toEqual(['nerdr-config', 'herdr-config']);
    expect(problems[0]!.path).toBe(path.join(nerdrDir(), 'claude.toml'));
    expect(problems[0]!.reason).toMatch(/bogus/);
    expect(problems[1]!.reason).toMatch(/does not name agent "claude"/);
  });
  it('aliases let a file claim the agent', () => {
    write(path.join(nerdrDir(), 'copilot.toml'), manifestText('something', undefined, undefined, 'aliases = ["GitHub-Copilot"]\n'));
    expect(registry().get('copilot')!.source).toBe('nerdr-config');
  });
  it('--manifests folders come first, in order; NERDR_CONFIG_DIR is honoured', () => {
    const a = path.join(root, 'a');
    const b = path.join(root, 'b');
    write(path.join(b, 'claude.toml'), manifestText('claude', '3'));
    write(path.join(a, 'claude.toml'), manifestText('claude', '4'));
    const cfg = path.join(root, 'cfg');
    write(path.join(cfg, 'agent-detection/claude.toml'), manifestText('claude', '5'));
    expect(registry([a, b]).get('claude')!.version).toBe('4');
    expect(registry([b, a]).get('claude')!.version).toBe('3');
    expect(registry([], { NERDR_CONFIG_DIR: cfg }).get('claude')!.version).toBe('5');
  });
  it("userPrograms(): the programs the user's own manifests are for (names and aliases), not the agents nerdr knows; forgotten on reload", () => {
    write(path.join(nerdrDir(), 'aider.toml'), manifestText('aider', undefined, undefined, 'aliases = ["Aider-Chat"]\n'));
    write(path.join(herdrDir(), 'myrepl.toml'), manifestText('myrepl'));
    write(path.join(nerdrDir(), 'claude.toml'), manifestText('claude'));
    write(path.join(nerdrDir(), 'wrong.toml'), manifestText('other'));
    write(path.join(remoteDir(), 'fromherdr.toml'), manifestText('fromherdr', '1', 1));
    const r = registry();
    expect([...r.userPrograms()].sort()).toEqual([['aider', 'aider'], ['aider-chat', 'aider'], ['myrepl', 'myrepl']]);
    write(path.join(nerdrDir(), 'more.toml'), manifestText('more'));
    expect(r.userPrograms().has('more')).toBe(false);
    r.reload();
    expect(r.userPrograms().get('more')).toBe('more');
  });
  it('agents() lists every agent with a file in any source', () => {
    write(path.join(herdrDir(), 'newagent.toml'), manifestText('newagent'));
    const r = registry();
    expect(r.agents()).toEqual(['claude', 'newagent']);
    expect(r.list().map((l) => l.agent)).toEqual(['claude', 'newagent']);
  });
});

/** Re-check a condition until it holds or the deadline passes (no fixed sleeps). */
async function waitFor(cond: () => boolean, timeoutMs = 10000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met before the deadline');
    await new Promise((res) => setTimeout(res, 20));
  }
}

describe('live reload', () => {
  it('picks up a new override file without restart and emits change', async () => {
    const r = registry();
    expect(r.get('claude')!.source).toBe('bundled');
    const changes: string[] = [];
    r.on('change', (p) => changes.push(p));
    await r.watch();
    try {
      // The folder does not exist yet: the watcher must notice it being created.
      write(path.join(nerdrDir(), 'claude.toml'), manifestText('claude', '9.9'));
      await waitFor(() => r.get('claude')!.source === 'nerdr-config');
      expect(r.get('claude')!.version).toBe('9.9');
      expect(changes.length).toBeGreaterThan(0);
      // Editing it again is seen too.
      write(path.join(nerdrDir(), 'claude.toml'), manifestText('claude', '9.10'));
      await waitFor(() => r.get('claude')!.version === '9.10');
      expect(changes.some((c) => c.endsWith('claude.toml'))).toBe(true);
    } finally {
      await r.close();
    }
  });

  it('sees a file written the moment its new folder appears (chokidar lists a new folder before it watches it)', async () => {
    // `mkdir -p …/agent-detection && cp demo.toml …`: chokidar lists a new folder, then starts
    // watching it; a file made between the two raised no event. The registry had reloaded on the
    // folder's event and kept the bundled manifest until the next change.
    let rounds = 0;
    for (let round = 0; round < 30; round++) {
      fs.mkdirSync(path.dirname(nerdrDir()), { recursive: true });
      const r = registry();
      await r.watch();
      try {
        const folderSeen = new Promise<void>((resolve) => r.once('change', () => resolve()));
        fs.mkdirSync(nerdrDir());
        await folderSeen;
        expect(r.get('claude')!.source).toBe('bundled'); // cached until the next change
        await new Promise((res) => setImmediate(res));
        fs.writeFileSync(path.join(nerdrDir(), 'claude.toml'), manifestText('claude', `9.${round}`));
        await waitFor(() => r.get('claude')!.version === `9.${round}`);
        rounds++;
      } finally {
        await r.close();
        fs.rmSync(path.join(home, '.config'), { recursive: true, force: true });
      }
    }
    expect(rounds).toBe(30);
  }, 120_000);
});
