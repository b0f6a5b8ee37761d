// `install = "home" | "worktree"`: nerdr's own files in an agent's config (opt-in), merged so that
// every other entry stays as it was, marked so nerdr only ever touches its own. Worktree files are
// kept out of git (info/exclude) when nerdr made them, and never touched when git tracks them.

import { readdirSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import { NerdrError } from '../errors.js';
import type { InstallMode } from './modes.js';
import { addGitExclude, gitExcludeFile, gitTracks, hasGitExclude, readText, removeFile, removeGitExclude, writeIfChanged } from './common.js';

export type FileMode = 'home' | 'worktree';

export interface InstallCtx {
  env: NodeJS.ProcessEnv;
  /** The folder for worktree mode. */
  cwd: string;
  nerdrBin: string;
  packageRoot: string;
  stateDir: string;
}

export interface InstallResult {
  agent: string;
  mode: FileMode;
  /** True when a file was written or removed. */
  changed: boolean;
  files: string[];
  notes: string[];
}

/** One file nerdr manages inside an agent's config. */
export interface FileIntegration {
  agent: string;
  file(mode: FileMode, c: InstallCtx): string;
  /** The new text given the current one (undefined = absent); `leave` says why nothing is written. */
  apply(existing: string | undefined, c: InstallCtx): { text: string } | { leave: string };
  /** The text without nerdr's entries; null = delete the file; undefined = nothing of ours in it. */
  remove(existing: string): string | null | undefined;
  /** nerdr's entries are in the file and up to date. */
  current(existing: string, c: InstallCtx): boolean;
  /** nerdr's entries are in the file (any version). */
  ours(existing: string): boolean;
  /** Files that go with this one (e.g. an extension's manifest): written with it, removed with it. */
  companions?(mode: FileMode, c: InstallCtx): { file: string; text: string; ours(existing: string | undefined): boolean }[];
  /** The folder that is wholly nerdr's (Copilot's plugin, Gemini's extension): removed once uninstalling empties it. */
  folder?(mode: FileMode, c: InstallCtx): string;
  /** The agent loads the home file whenever it is there, whatever the mode (Gemini's extension): a launch then reports through it. */
  loadedWhenPresent?: boolean;
}

/**
 * Whether a launch in `mode` reports through nerdr's home file: hooks allowed, and the home mode,
 * or a file the agent loads whenever it is there that is already there (`nerdr integrations install`).
 */
export function usesHomeFile(integ: FileIntegration, mode: InstallMode, hooksAllowed: boolean, c: InstallCtx): boolean {
  if (!hooksAllowed) return false;
  if (mode === 'home') return true;
  if (!integ.loadedWhenPresent) return false;
  const present = readText(integ.file('home', c));
  return present !== undefined && integ.ours(present);
}

export function installFile(integ: FileIntegration, mode: FileMode, c: InstallCtx): InstallResult {
  const file = integ.file(mode, c);
  const res: InstallResult = { agent: integ.agent, mode, changed: false, files: [file], notes: [] };
  if (mode === 'worktree') {
    if (gitExcludeFile(c.cwd) === undefined) res.notes.push(`${c.cwd} is not in a git work tree: ${file} cannot be kept out of git`);
    else if (gitTracks(c.cwd, file)) {
      res.notes.push(`${file} is tracked by git: left as it is`);
      return res;
    }
  }
  const existing = readText(file);
  const r = integ.apply(existing, c);
  if ('leave' in r) {
    res.notes.push(r.leave);
    return res;
  }
  res.changed = writeIfChanged(file, r.text);
  for (const comp of integ.companions?.(mode, c) ?? []) {
    const theirs = readText(comp.file);
    if (theirs !== undefined && !comp.ours(theirs)) res.notes.push(`${comp.file} is not nerdr's: left as it is`);
    else if (writeIfChanged(comp.file, comp.text)) res.changed = true;
    res.files.push(comp.file);
  }
  if (mode === 'worktree' && (existing === undefined || hasGitExclude(c.cwd, file))) {
    const ex = addGitExclude(c.cwd, file);
    if (ex) res.files.push(ex);
  }
  return res;
}

function removeEmptyDirs(from: string, upTo: string): void {
  for (let dir = from; dir.startsWith(upTo) && dir !== upTo; dir = path.dirname(dir)) {
    try {
      if (readdirSync(dir).length > 0) return;
      rmdirSync(dir);
    } catch {
      return;
    }
  }
}

export function uninstallFile(integ: FileIntegration, mode: FileMode, c: InstallCtx, stopAt?: string): InstallResult {
  const file = integ.file(mode, c);
  const res: InstallResult = { agent: integ.agent, mode, changed: false, files: [file], notes: [] };
  const existing = readText(file);
  if (existing === undefined) return res;
  if (mode === 'worktree' && gitExcludeFile(c.cwd) !== undefined && gitTracks(c.cwd, file)) {
    res.notes.push(`${file} is tracked by git: left as it is`);
    return res;
  }
  const next = integ.remove(existing);
  if (next === undefined) return res;
  if (next === null) {
    res.changed = removeFile(file);
    for (const comp of integ.companions?.(mode, c) ?? []) {
      if (comp.ours(readText(comp.file)) && removeFile(comp.file)) res.changed = true;
      if (stopAt) removeEmptyDirs(path.dirname(comp.file), stopAt);
    }
    if (mode === 'worktree') removeGitExclude(c.cwd, file);
    if (stopAt) removeEmptyDirs(path.dirname(file), stopAt);
  } else res.changed = writeIfChanged(file, next);
  return res;
}

export interface FileStatus {
  mode: FileMode;
  file: string;
  present: boolean;
  ours: boolean;
  current: boolean;
  excluded?: boolean;
}

export function fileStatus(integ: FileIntegration, mode: FileMode, c: InstallCtx): FileStatus {
  const file = integ.file(mode, c);
  const text = readText(file);
  const st: FileStatus = { mode, file, present: text !== undefined, ours: text !== undefined && integ.ours(text), current: text !== undefined && integ.current(text, c) };
  if (mode === 'worktree' && text !== undefined) st.excluded = hasGitExclude(c.cwd, file);
  return st;
}

export function requireMode(agent: string, mode: string, modes: readonly string[]): FileMode {
  if (mode !== 'home' && mode !== 'worktree') throw new NerdrError(`--mode must be home or worktree (got "${mode}")`, '--mode home, or --mode worktree', { code: 'invalid_option' });
  if (!modes.includes(mode)) throw new NerdrError(`${agent} has no ${mode} install`, `${agent} supports: ${modes.join(', ') || 'nothing to install'}`);
  return mode;
}
