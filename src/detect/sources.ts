// Where manifests come from (docs/manifest-format.md, "Where the files live").
//
// Per agent, first found wins:
//   1. each `--manifests DIR` given by the caller, in order          (source "extra")
//   2. $NERDR_CONFIG_DIR | $XDG_CONFIG_HOME/nerdr | ~/.config/nerdr  /agent-detection/<agent>.toml  ("nerdr-config")
//   3. $XDG_CONFIG_HOME/herdr | ~/.config/herdr                       /agent-detection/<agent>.toml  ("herdr-config")
//   4. the newer of herdr's downloaded copy ($XDG_STATE_HOME/herdr | ~/.local/state/herdr
//      /agent-detection/remote/<agent>.toml, or directly in agent-detection/) — used when its version is at
//      least the bundled one — and nerdr's bundled manifests/<agent>.toml  ("herdr-remote" / "bundled").
// A file that does not load is reported as a problem and the next source is used.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../paths.js';
import { parseManifest, type Manifest } from './schema.js';
import { agentKey, agentLabel } from '../labels.js';

export type SourceKind = 'extra' | 'nerdr-config' | 'herdr-config' | 'herdr-remote' | 'bundled';

export interface SourceDir {
  kind: SourceKind;
  dir: string;
}

export interface SourcePaths {
  extra: string[];
  nerdrConfig: string;
  herdrConfig: string;
  /** Folders searched for herdr's downloaded copies, in order. */
  herdrRemote: string[];
  bundled: string;
}

export interface SourcePathOptions {
  env?: NodeJS.ProcessEnv;
  extraDirs?: string[];
  bundledDir?: string;
}

/** nerdr's own manifests/ folder, in the package root. */
export function defaultBundledDir(): string {
  return path.join(packageRoot, 'manifests');
}

function nonEmpty(v: string | undefined): string | undefined {
  return v !== undefined && v !== '' ? v : undefined;
}

/** Compute every source folder from the environment (read once, at construction time). */
export function resolveSourcePaths(opts: SourcePathOptions = {}): SourcePaths {
  const env = opts.env ?? process.env;
  const home = nonEmpty(env.HOME) ?? os.homedir();
  const xdgConfig = nonEmpty(env.XDG_CONFIG_HOME);
  const xdgState = nonEmpty(env.XDG_STATE_HOME);
  const nerdrConfigRoot = nonEmpty(env.NERDR_CONFIG_DIR) ?? path.join(xdgConfig ?? path.join(home, '.config'), 'nerdr');
  const herdrConfigRoot = path.join(xdgConfig ?? path.join(home, '.config'), 'herdr');
  const herdrStateRoot = path.join(xdgState ?? path.join(home, '.local', 'state'), 'herdr');
  const remoteBase = path.join(herdrStateRoot, 'agent-detection');
  return {
    extra: (opts.extraDirs ?? []).map((d) => path.resolve(d)),
    nerdrConfig: path.join(nerdrConfigRoot, 'agent-detection'),
    herdrConfig: path.join(herdrConfigRoot, 'agent-detection'),
    herdrRemote: [path.join(remoteBase, 'remote'), remoteBase],
    bundled: path.resolve(opts.bundledDir ?? defaultBundledDir()),
  };
}

/** Override folders, highest precedence first (everything but herdr-remote and bundled). */
export function overrideDirs(p: SourcePaths): SourceDir[] {
  return [
    ...p.extra.map((dir) => ({ kind: 'extra' as const, dir })),
    { kind: 'nerdr-config', dir: p.nerdrConfig },
    { kind: 'herdr-config', dir: p.herdrConfig },
  ];
}

/** Every folder that may hold manifests, in precedence order. */
export function allDirs(p: SourcePaths): SourceDir[] {
  return [
    ...overrideDirs(p),
    ...p.herdrRemote.map((dir) => ({ kind: 'herdr-remote' as const, dir })),
    { kind: 'bundled', dir: p.bundled },
  ];
}

/** Agent ids (file names without .toml) present in a folder; [] if it does not exist. */
export function agentsInDir(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => n.endsWith('.toml') && n.length > 5).map((n) => n.slice(0, -5));
}

// ---------- agent names (labels.ts) ----------

export { agentKey };

/** Canonical label of a known agent name, or the lower-cased key for a user's own agent id. */
export function canonicalAgent(name: string): string {
  return agentLabel(name) ?? agentKey(name);
}

/** Whether a manifest's id or one of its aliases names `agent`. */
export function manifestClaims(m: Manifest, agent: string): boolean {
  const target = canonicalAgent(agent);
  return [m.id, ...m.aliases].some((n) => canonicalAgent(n) === target);
}

// ---------- loading one file ----------

export type FileLoad =
  | { ok: true; manifest: Manifest; path: string }
  | { ok: false; path: string; errors: string[]; missing: boolean };

export function loadManifestFile(file: string): FileLoad {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return { ok: false, path: file, errors: [`cannot read: ${err.message}`], missing: err.code === 'ENOENT' };
  }
  const r = parseManifest(text);
  return r.ok ? { ok: true, manifest: r.manifest, path: file } : { ok: false, path: file, errors: r.errors, missing: false };
}
