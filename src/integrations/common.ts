// Helpers shared by the per-agent launch/install files. No shell is built from user text here:
// the only string ever given to a shell is nerdr's own binary path, quoted.

import { createHash, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, readFileSync, renameSync, statSync, writeFileSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Quote for POSIX sh, bash, zsh and fish: bare when safe, else single quotes. */
export function shQuote(s: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * nerdr's shell hook (hooks/nerdr-hook): writes one spool file per event, no Node start. Found
 * beside nerdr's executable, which is always <package>/bin/nerdr.js (paths.ts).
 */
export function shellHookPath(nerdrBin: string): string {
  return path.join(path.dirname(path.dirname(nerdrBin)), 'hooks', 'nerdr-hook');
}

/**
 * The command an agent runs for one hook: `/bin/sh <package>/hooks/nerdr-hook <agent> [<event>]`.
 * Run by `sh` by name, so the script needs no executable bit (a TPM clone, a tarball).
 * `nerdr hook <agent>` (the Node path) stays for herdr-style scripts and users.
 */
export function hookCommand(nerdrBin: string, agent: string, event?: string): string {
  return ['/bin/sh', shQuote(shellHookPath(nerdrBin)), agent, ...(event ? [event] : [])].join(' ');
}

/** The argv form of hookCommand, for agents that take a program and its arguments (Codex's notify). */
export function hookArgv(nerdrBin: string, agent: string, event?: string): string[] {
  return ['/bin/sh', shellHookPath(nerdrBin), agent, ...(event ? [event] : [])];
}

/** True when text (a command, or a config file holding one) runs nerdr's hook for this agent: the shell hook or `nerdr hook`. */
export function mentionsOurHook(text: string, agent: string): boolean {
  return new RegExp(`(^|[\\s'"/-])hook'? ${agent}(?![\\w-])`).test(text);
}

/** True when a hook command string is one of nerdr's, for this agent. */
export function isOurCommand(cmd: unknown, agent: string): boolean {
  return typeof cmd === 'string' && /nerdr/.test(cmd) && mentionsOurHook(cmd, agent);
}

export function sha(text: string, len = 12): string {
  return createHash('sha256').update(text).digest('hex').slice(0, len);
}

export function newUuid(): string {
  return randomUUID();
}

export function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Write atomically (temp + rename); skip when the content is already there. Returns true if written. */
export function writeIfChanged(file: string, content: string, mode = 0o644): boolean {
  if (readText(file) === content) return false;
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.nerdr-${process.pid}-${Date.now()}.tmp`;
  writeFileSync(tmp, content, { mode });
  renameSync(tmp, file);
  return true;
}

export function removeFile(file: string): boolean {
  try {
    unlinkSync(file);
    return true;
  } catch {
    return false;
  }
}

/** A file under <state>/launch/<agent>/, named after its content so it never needs cleaning up mid-run. */
export function launchFile(stateDir: string, agent: string, stem: string, ext: string, content: string): string {
  const file = path.join(stateDir, 'launch', agent, `${stem}-${sha(content)}.${ext}`);
  writeIfChanged(file, content);
  return file;
}

export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || os.homedir();
}

export function xdgConfigHome(env: NodeJS.ProcessEnv): string {
  return env.XDG_CONFIG_HOME || path.join(homeOf(env), '.config');
}

/** Find a program on PATH (no shell). */
export function which(program: string, envPath = process.env.PATH ?? ''): string | undefined {
  const candidates = program.includes('/') ? [program] : envPath.split(path.delimiter).filter(Boolean).map((d) => path.join(d, program));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      if (statSync(c).isFile()) return c;
    } catch { /* next */ }
  }
  return undefined;
}

// ---- arguments ----

/** Value of a flag in `--flag V`, `--flag=V` or short `-f V` form; '' when present without a value; undefined when absent. */
export function flagValue(args: string[], names: string[], takesValue: 'required' | 'optional' | 'none' = 'required'): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break;
    for (const n of names) {
      if (a === n) {
        if (takesValue === 'none') return '';
        const next = args[i + 1];
        if (next !== undefined && (takesValue === 'required' || !next.startsWith('-'))) return next;
        return '';
      }
      if (n.startsWith('--') && a.startsWith(`${n}=`)) return a.slice(n.length + 1);
    }
  }
  return undefined;
}

export function hasFlag(args: string[], names: string[]): boolean {
  return flagValue(args, names, 'none') !== undefined || args.some((a) => names.some((n) => n.startsWith('--') && a.startsWith(`${n}=`)));
}

/** Remove a flag and its value (for flags nerdr replaces, such as a user's --settings it merges). */
export function withoutFlag(args: string[], names: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (names.includes(a)) { i++; continue; }
    if (names.some((n) => n.startsWith('--') && a.startsWith(`${n}=`))) continue;
    out.push(a);
  }
  return out;
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// ---- git (worktree mode) ----

function git(cwd: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).trim();
  } catch {
    return undefined;
  }
}

/** The repository's info/exclude file for a folder inside a git work tree, or undefined. */
export function gitExcludeFile(cwd: string): string | undefined {
  const p = git(cwd, ['rev-parse', '--git-path', 'info/exclude']);
  if (!p) return undefined;
  return path.resolve(cwd, p);
}

/** True when git tracks this file (then nerdr leaves it alone). */
export function gitTracks(cwd: string, file: string): boolean {
  return git(cwd, ['ls-files', '--error-unmatch', '--', path.relative(cwd, file)]) !== undefined;
}

// gitignore has no trailing comments: nerdr's mark is a comment line of its own before the pattern.
const markLine = (pat: string) => `# added by nerdr: ${pat}`;

/** The exclude pattern for a file: anchored to the top of the work tree. */
function excludePattern(cwd: string, file: string): string | undefined {
  const top = git(cwd, ['rev-parse', '--show-toplevel']);
  if (!top) return undefined;
  return '/' + path.relative(top, file).split(path.sep).join('/');
}

function excludeLines(cwd: string, file: string): { ex: string; pat: string; lines: string[]; at: number } | undefined {
  const ex = gitExcludeFile(cwd);
  const pat = excludePattern(cwd, file);
  if (!ex || !pat) return undefined;
  const lines = (readText(ex) ?? '').split('\n');
  const at = lines.findIndex((l, i) => l === markLine(pat) && lines[i + 1] === pat);
  return { ex, pat, lines, at };
}

/** Keep a file nerdr made out of git: a marked pattern in info/exclude. Idempotent. */
export function addGitExclude(cwd: string, file: string): string | undefined {
  const e = excludeLines(cwd, file);
  if (!e) return undefined;
  if (e.at >= 0) return e.ex;
  const text = e.lines.join('\n');
  writeIfChanged(e.ex, text + (text === '' || text.endsWith('\n') ? '' : '\n') + `${markLine(e.pat)}\n${e.pat}\n`);
  return e.ex;
}

export function removeGitExclude(cwd: string, file: string): void {
  const e = excludeLines(cwd, file);
  if (!e || e.at < 0) return;
  e.lines.splice(e.at, 2);
  writeIfChanged(e.ex, e.lines.join('\n'));
}

export function hasGitExclude(cwd: string, file: string): boolean {
  const e = excludeLines(cwd, file);
  return e !== undefined && e.at >= 0;
}

/** Parse JSON strictly; undefined on error. */
export function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One matcher group of Claude-style hook settings (Claude Code, Qwen Code, Grok Build). */
export type HookGroup = { matcher?: string; hooks: Record<string, unknown>[] };

/** Claude-style hook settings: per event one group (with its matcher) holding the one hook `hook` gives. */
export function hookGroups(events: { event: string; matcher?: string }[], hook: (event: string) => Record<string, unknown>): Record<string, HookGroup[]> {
  const hooks: Record<string, HookGroup[]> = {};
  for (const { event, matcher } of events) hooks[event] = [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [hook(event)] }];
  return hooks;
}
