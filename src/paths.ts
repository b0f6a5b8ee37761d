// Where nerdr keeps things (product.md "Places and names").

import { mkdirSync, chmodSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverKey } from './tmux/server.js';

export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NERDR_STATE_DIR) return path.resolve(env.NERDR_STATE_DIR);
  if (env.XDG_STATE_HOME) return path.join(env.XDG_STATE_HOME, 'nerdr');
  return path.join(env.HOME || os.homedir(), '.local', 'state', 'nerdr');
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NERDR_CONFIG_DIR) return path.resolve(env.NERDR_CONFIG_DIR);
  if (env.XDG_CONFIG_HOME) return path.join(env.XDG_CONFIG_HOME, 'nerdr');
  return path.join(env.HOME || os.homedir(), '.config', 'nerdr');
}

/** The state dir, created private (0700) if missing. */
export function ensureStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = stateDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) chmodSync(dir, 0o700);
  return dir;
}

/** Per tmux server: the supervisor's socket, log and lock. */
export function serverFiles(socketPath: string, env: NodeJS.ProcessEnv = process.env) {
  const dir = stateDir(env);
  const key = serverKey(socketPath);
  return {
    dir,
    key,
    socket: path.join(dir, `nerdr-${key}.sock`),
    log: path.join(dir, `core-${key}.log`),
    lock: path.join(dir, `supervisor-${key}.lock`),
  };
}

/** The package root (holds manifests/, hooks/, bin/), from dist/ or src/. */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const nerdrBin = path.join(packageRoot, 'bin', 'nerdr.js');
