// The set of manifests in use, resolved per agent from the sources of sources.ts, cached, and
// reloaded when a file in an override folder changes (watch()).

import { EventEmitter } from 'node:events';
import path from 'node:path';
import fs from 'node:fs';
import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import { RuleGuard, type RuleGuardOptions } from './evaluate.js';
import type { Manifest } from './schema.js';
import {
  agentsInDir,
  allDirs,
  loadManifestFile,
  manifestClaims,
  overrideDirs,
  resolveSourcePaths,
  type SourceKind,
  type SourcePathOptions,
  type SourcePaths,
} from './sources.js';
import { compareVersions, ENGINE_VERSION } from './version.js';
import { agentKey, agentLabel } from '../labels.js';

export interface LoadedManifest {
  agent: string;
  manifest: Manifest;
  source: SourceKind;
  path: string;
  version: string | null;
  /** Notes about this choice, e.g. an older downloaded copy that was not used. */
  warnings: string[];
  /** Slow-rule guard for this manifest (pass it to evaluate()). */
  guard: RuleGuard;
}

export interface ManifestProblem {
  agent: string;
  source: SourceKind;
  path: string;
  reason: string;
}

export interface RegistryOptions extends SourcePathOptions {
  /** Receives load problems and slow-rule warnings as one-line messages. */
  onWarning?: (message: string) => void;
  /** Slow-rule guard settings for every manifest. */
  guard?: Omit<RuleGuardOptions, 'onWarning'>;
}

interface Resolution {
  loaded: LoadedManifest | undefined;
  problems: ManifestProblem[];
}

export declare interface ManifestRegistry {
  on(event: 'change', listener: (changedPath: string) => void): this;
  emit(event: 'change', changedPath: string): boolean;
}

export class ManifestRegistry extends EventEmitter {
  readonly paths: SourcePaths;
  private readonly cache = new Map<string, Resolution>();
  private readonly onWarning: (message: string) => void;
  private readonly guardOpts: Omit<RuleGuardOptions, 'onWarning'>;
  private watcher: FSWatcher | undefined;
  private programs: Map<string, string> | undefined;
  private readonly rechecks = new Set<NodeJS.Timeout>();

  constructor(opts: RegistryOptions = {}) {
    super();
    this.paths = resolveSourcePaths(opts);
    this.onWarning = opts.onWarning ?? (() => {});
    this.guardOpts = opts.guard ?? {};
  }

  /** Every agent some source has a file for, sorted. */
  agents(): string[] {
    const set = new Set<string>();
    for (const d of allDirs(this.paths)) for (const a of agentsInDir(d.dir)) set.add(a);
    return [...set].sort();
  }

  /** The manifest in use for `agent` (its file name without .toml), or undefined. */
  get(agent: string): LoadedManifest | undefined {
    return this.resolve(agent).loaded;
  }

  list(): LoadedManifest[] {
    return this.agents().flatMap((a) => {
      const l = this.get(a);
      return l ? [l] : [];
    });
  }

  /** Problems met while resolving every agent (invalid files, wrong ids, too-new engine levels). */
  problems(): ManifestProblem[] {
    return this.agents().flatMap((a) => this.resolve(a).problems);
  }

  /**
   * The programs the user's own manifests are for, beyond the agents nerdr knows: the lookup key
   * of each file's name and its aliases → the file's name. With `aider.toml` in the config
   * folder, a process named aider is identified as "aider" and read by that file: a manifest of
   * the user's own wins over the quiet rule (docs/identify.md). Kept until the next reload.
   */
  userPrograms(): ReadonlyMap<string, string> {
    if (this.programs) return this.programs;
    const m = new Map<string, string>();
    for (const d of overrideDirs(this.paths)) {
      for (const agent of agentsInDir(d.dir)) {
        if (agentLabel(agent) !== null || m.has(agentKey(agent))) continue; // known agents go by their own names
        const loaded = this.get(agent);
        if (!loaded || (loaded.source !== 'extra' && loaded.source !== 'nerdr-config' && loaded.source !== 'herdr-config')) continue;
        for (const n of [agent, ...loaded.manifest.aliases]) if (!m.has(agentKey(n))) m.set(agentKey(n), agent);
      }
    }
    this.programs = m;
    return m;
  }

  /** Forget everything loaded; the next get() reads the files again. Emits 'change'. */
  reload(changedPath = ''): void {
    this.cache.clear();
    this.programs = undefined;
    this.emit('change', changedPath);
  }

  private resolve(agent: string): Resolution {
    const cached = this.cache.get(agent);
    if (cached) return cached;
    const r = this.resolveUncached(agent);
    this.cache.set(agent, r);
    for (const p of r.problems) this.onWarning(`manifest ${p.path} ignored: ${p.reason}`);
    return r;
  }

  private makeLoaded(agent: string, manifest: Manifest, source: SourceKind, file: string, warnings: string[]): LoadedManifest {
    return {
      agent,
      manifest,
      source,
      path: file,
      version: manifest.version,
      warnings,
      guard: new RuleGuard(`${agent} manifest ${file}`, { ...this.guardOpts, onWarning: this.onWarning }),
    };
  }

  private resolveUncached(agent: string): Resolution {
    const problems: ManifestProblem[] = [];
    if (!/^[A-Za-z0-9._-]+$/.test(agent) || agent.startsWith('.')) return { loaded: undefined, problems };
    const tryFile = (source: SourceKind, dir: string): Manifest | undefined => {
      const file = path.join(dir, `${agent}.toml`);
      const r = loadManifestFile(file);
      if (!r.ok) {
        if (!r.missing) problems.push({ agent, source, path: file, reason: r.errors.join('; ') });
        return undefined;
      }
      if (source !== 'bundled' && !manifestClaims(r.manifest, agent)) {
        problems.push({
          agent,
          source,
          path: file,
          reason: `its id ${JSON.stringify(r.manifest.id)} (aliases: ${r.manifest.aliases.join(', ') || 'none'}) does not name agent "${agent}"`,
        });
        return undefined;
      }
      if (r.manifest.minEngineVersion !== null && r.manifest.minEngineVersion > ENGINE_VERSION) {
        problems.push({
          agent,
          source,
          path: file,
          reason: `it needs engine level ${r.manifest.minEngineVersion}, this nerdr has level ${ENGINE_VERSION}; update nerdr`,
        });
        return undefined;
      }
      return r.manifest;
    };

    for (const d of overrideDirs(this.paths)) {
      const m = tryFile(d.kind, d.dir);
      if (m) return { loaded: this.makeLoaded(agent, m, d.kind, path.join(d.dir, `${agent}.toml`), []), problems };
    }

    const bundledFile = path.join(this.paths.bundled, `${agent}.toml`);
    const bundled = tryFile('bundled', this.paths.bundled);
    for (const dir of this.paths.herdrRemote) {
      const file = path.join(dir, `${agent}.toml`);
      const remote = tryFile('herdr-remote', dir);
      if (!remote) continue;
      if (remote.versionParts === null || remote.minEngineVersion === null) {
        problems.push({
          agent,
          source: 'herdr-remote',
          path: file,
          reason: 'a downloaded manifest must declare version and min_engine_version',
        });
        continue;
      }
      if (!bundled || bundled.versionParts === null || compareVersions(remote.versionParts, bundled.versionParts) >= 0) {
        return { loaded: this.makeLoaded(agent, remote, 'herdr-remote', file, []), problems };
      }
      const note = `downloaded copy ${file} (version ${remote.version}) is older than the bundled ${bundled.version}; using the bundled one`;
      return { loaded: this.makeLoaded(agent, bundled, 'bundled', bundledFile, [note]), problems };
    }
    if (bundled) return { loaded: this.makeLoaded(agent, bundled, 'bundled', bundledFile, []), problems };
    return { loaded: undefined, problems };
  }

  /**
   * Watch the override folders and herdr's download folder (they need not exist yet: the nearest
   * existing parent is watched, filtered to the paths that matter). Any change clears the cache and
   * emits 'change'. Resolves once the watcher is ready.
   */
  async watch(): Promise<void> {
    if (this.watcher) return;
    const targets = [...overrideDirs(this.paths).map((d) => d.dir), ...this.paths.herdrRemote];
    const roots = new Set<string>();
    for (const t of targets) roots.add(nearestExisting(t));
    const relevant = (p: string): boolean =>
      targets.some((t) => p === t || p.startsWith(t + path.sep) || t.startsWith(p + path.sep));
    let depth = 1;
    for (const t of targets) {
      const root = nearestExisting(t);
      const rel = path.relative(root, t);
      depth = Math.max(depth, (rel === '' ? 0 : rel.split(path.sep).length) + 2);
    }
    const watcher = chokidarWatch([...roots], {
      ignoreInitial: true,
      depth,
      ignored: (p: string) => !relevant(path.resolve(p)),
    });
    this.watcher = watcher;
    watcher.on('all', (event, p) => {
      if (event === 'addDir') this.recheckNewFolder(targets);
      if (p.endsWith('.toml') || targets.includes(path.resolve(p))) this.reload(p);
    });
    watcher.on('error', (e) => this.onWarning(`manifest watcher: ${(e as Error).message}`));
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  }

  /**
   * chokidar lists a new folder and only then watches it: a file made in between (`mkdir -p
   * agent-detection && cp demo.toml agent-detection/`) raises no event, and the reload the folder's
   * own event made has already read it empty. So the folders are listed again a little later,
   * once the watch is in place, and reloaded if their manifests differ from that reload's.
   */
  private recheckNewFolder(targets: string[]): void {
    const listing = (): string =>
      targets
        .flatMap((dir) => {
          try {
            return fs
              .readdirSync(dir)
              .filter((f) => f.endsWith('.toml'))
              .map((f) => {
                const st = fs.statSync(path.join(dir, f), { throwIfNoEntry: false });
                return `${dir}/${f}:${st?.mtimeMs ?? 0}:${st?.size ?? 0}`;
              });
          } catch {
            return [];
          }
        })
        .join('\n');
    let seen = listing();
    for (const ms of [100, 1000, 5000]) {
      const t = setTimeout(() => {
        this.rechecks.delete(t);
        const now = listing();
        if (!this.watcher || now === seen) return;
        seen = now;
        this.reload(targets[0] ?? '');
      }, ms);
      t.unref();
      this.rechecks.add(t);
    }
  }

  async close(): Promise<void> {
    for (const t of this.rechecks) clearTimeout(t);
    this.rechecks.clear();
    const w = this.watcher;
    this.watcher = undefined;
    if (w) await w.close();
  }
}

function nearestExisting(p: string): string {
  let cur = path.resolve(p);
  for (;;) {
    try {
      if (fs.statSync(cur).isDirectory()) return cur;
    } catch {
      // keep climbing
    }
    const parent = path.dirname(cur);
    if (parent === cur) return cur;
    cur = parent;
  }
}
