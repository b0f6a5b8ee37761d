// Codex CLI: hooks passed per launch with `-c hooks.<Event>=[…]`, to a codex started with
// `--no-daemon` (a codex on the shared app-server daemon runs hooks with another window's env).
//
// Trust (docs/agents.md): codex runs a non-managed hook only
// once its hash is recorded under [hooks.state] in the *user's* config.toml, and otherwise stops at
// start with "Hooks need review". So:
//   install = "launch" (default): nerdr writes nothing; hooks are passed only when codex already
//       trusts them (the user chose "Trust all" once, or ran `nerdr integrations install codex`);
//       otherwise the legacy `notify` program reports turn ends (when the user has none of their own).
//   install = "home": nerdr has codex record the trust, through codex's own app server
//       (hooks/list → currentHash, config/batchWrite → [hooks.state]); nerdr never computes the hash.
// Hook definitions are byte-stable (no per-window data), so one trust covers every launch.
//
// The nerdr skill: codex reads skills only from folders (its $CODEX_HOME/skills, ~/.agents/skills,
// /etc/codex/skills, a repo's .agents/skills, installed plugins), none of which a launch can name;
// so it is handed with install = "home" (and `nerdr integrations install codex`), as
// $CODEX_HOME/skills/nerdr/SKILL.md: codex's own folder, not the ~/.agents one other agents read.

import type { LimitWording } from '../detect/limits.js';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { flagValue, hasFlag, homeOf, hookArgv, hookCommand, isObj, mentionsOurHook, readText, sha, writeIfChanged, parseJson } from './common.js';
import { mapCodex } from './events/codex.js';
import type { AgentIntegration, CodexAppServer, CodexHookInfo, LaunchPlan, PlanInput } from './types.js';

export type { CodexAppServer, CodexHookInfo };
import { isNerdrSkill, removeSkillFrom, skillFileIn, writeSkillInto, type SkillWrite } from './skill.js';

export const CODEX_EVENTS = [
  'SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'Stop',
  'Interrupt', 'SubagentStart', 'SubagentStop', 'PreCompact', 'SessionEnd',
] as const;

/** Codex clamps these to 3 s (and warns when asked for more). */
const SHORT = new Set(['SessionEnd', 'Interrupt']);

const SUBCOMMANDS = new Set([
  'agents', 'exec', 'e', 'review', 'login', 'logout', 'mcp', 'plugin', 'app-server', 'remote-control', 'completion',
  'update', 'doctor', 'sandbox', 'debug', 'apply', 'a', 'resume', 'queue', 'archive', 'delete', 'migrate-rollouts',
  'migrate-nfs-db', 'unarchive', 'fork', 'cloud', 'exec-server', 'features', 'help', 'mcp-server',
]);
/** Subcommands that open the interactive TUI, and so get nerdr's wiring after the subcommand word. */
const TUI_SUBCOMMANDS = new Set(['resume', 'fork']);

function tomlString(s: string): string {
  return JSON.stringify(s); // JSON string escapes are valid TOML basic-string escapes
}

/** The `-c` arguments (flag, value, flag, value, …) carrying nerdr's hooks. Stable for a given nerdrBin. */
export function codexHookFlags(nerdrBin: string): string[] {
  const out: string[] = [];
  const cmd = tomlString(hookCommand(nerdrBin, 'codex'));
  for (const ev of CODEX_EVENTS) {
    out.push('-c', `hooks.${ev}=[{hooks=[{type="command",command=${cmd},timeout=${SHORT.has(ev) ? 3 : 10}}]}]`);
  }
  return out;
}

/** The legacy notify program: codex appends the turn's JSON as the last argument. */
export function codexNotifyFlag(nerdrBin: string): string[] {
  return ['-c', `notify=[${hookArgv(nerdrBin, 'codex', 'notify').map(tomlString).join(',')}]`];
}

export function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME ? path.resolve(env.CODEX_HOME) : path.join(homeOf(env), '.codex');
}

function userConfig(env: NodeJS.ProcessEnv): Record<string, unknown> | undefined {
  const text = readText(path.join(codexHome(env), 'config.toml'));
  if (text === undefined) return {};
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** trusted_hash values recorded in the user's config.toml, by hook key. */
export function recordedTrust(env: NodeJS.ProcessEnv): Record<string, string> {
  const cfg = userConfig(env);
  const out: Record<string, string> = {};
  const hooks = cfg?.['hooks'];
  const state = isObj(hooks) ? hooks['state'] : undefined;
  if (!isObj(state)) return out;
  for (const [k, v] of Object.entries(state)) if (isObj(v) && typeof v['trusted_hash'] === 'string') out[k] = v['trusted_hash'];
  return out;
}

// ---- codex app-server (JSON-RPC over stdio) ----

const APP_SERVER_TIMEOUT_MS = 15_000;

async function withAppServer<T>(codexCommand: string[], flags: string[], cwd: string, env: NodeJS.ProcessEnv, work: (call: (method: string, params: unknown) => Promise<unknown>) => Promise<T>): Promise<T> {
  const [program, ...fixed] = codexCommand;
  if (!program) throw new Error('no codex command');
  const child = spawn(program, [...fixed, 'app-server', ...flags], { cwd, env: { ...env }, stdio: ['pipe', 'pipe', 'ignore'] });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let buf = '';
  let nextId = 0;
  const failAll = (e: Error) => { for (const p of pending.values()) p.reject(e); pending.clear(); };
  child.on('error', (e) => failAll(e));
  child.on('exit', () => failAll(new Error('codex app-server exited')));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    buf += d;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const m = parseJson(line);
      if (!isObj(m) || typeof m['id'] !== 'number') continue;
      const p = pending.get(m['id']);
      if (!p) continue;
      pending.delete(m['id']);
      if (m['error'] !== undefined) p.reject(new Error(`codex app-server: ${JSON.stringify(m['error'])}`));
      else p.resolve(m['result']);
    }
  });
  const call = (method: string, params: unknown) => new Promise<unknown>((resolve, reject) => {
    const id = ++nextId;
    pending.set(id, { resolve, reject });
    child.stdin.write(JSON.stringify({ id, method, params }) + '\n');
  });
  const timer = setTimeout(() => failAll(new Error('codex app-server did not answer in time')), APP_SERVER_TIMEOUT_MS);
  try {
    await call('initialize', { clientInfo: { name: 'nerdr', title: null, version: '0.1.0' }, capabilities: null });
    child.stdin.write(JSON.stringify({ method: 'initialized' }) + '\n');
    return await work(call);
  } finally {
    clearTimeout(timer);
    child.stdin.end();
    child.kill();
  }
}

export const realCodexAppServer: CodexAppServer = {
  async listSessionHooks(codexCommand, flags, cwd, env) {
    return withAppServer(codexCommand, flags, cwd, env, async (call) => {
      const r = await call('hooks/list', { cwds: [cwd] });
      const out: CodexHookInfo[] = [];
      const data = isObj(r) && Array.isArray(r['data']) ? r['data'] : [];
      for (const entry of data) {
        if (!isObj(entry) || !Array.isArray(entry['hooks'])) continue;
        for (const h of entry['hooks']) {
          if (!isObj(h) || h['source'] !== 'sessionFlags') continue;
          if (typeof h['key'] !== 'string' || typeof h['currentHash'] !== 'string') continue;
          out.push({ key: h['key'], currentHash: h['currentHash'], trustStatus: String(h['trustStatus'] ?? ''), ...(typeof h['command'] === 'string' ? { command: h['command'] } : {}), source: 'sessionFlags' });
        }
      }
      return out;
    });
  },
  async trust(codexCommand, entries, cwd, env) {
    const value: Record<string, unknown> = {};
    for (const e of entries) value[e.key] = { trusted_hash: e.hash };
    await withAppServer(codexCommand, [], cwd, env, async (call) => {
      await call('config/batchWrite', { edits: [{ keyPath: 'hooks.state', value, mergeStrategy: 'upsert' }] });
    });
  },
};

// ---- trust bookkeeping ----

/** nerdr's memory of codex's hashes for its hook definitions: <state>/launch/codex/hashes.json. */
function hashesFile(stateDir: string): string {
  return path.join(stateDir, 'launch', 'codex', 'hashes.json');
}

function fingerprint(flags: string[]): string {
  return sha(flags.join('\u0000'), 16);
}

function cachedHashes(stateDir: string, fp: string): Record<string, string> | undefined {
  const all = parseJson(readText(hashesFile(stateDir)));
  const v = isObj(all) ? all[fp] : undefined;
  if (!isObj(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, h] of Object.entries(v)) if (typeof h === 'string') out[k] = h;
  return Object.keys(out).length > 0 ? out : undefined;
}

function saveHashes(stateDir: string, fp: string, hashes: Record<string, string>): void {
  const file = hashesFile(stateDir);
  const all = parseJson(readText(file));
  const next = { ...(isObj(all) ? all : {}), [fp]: hashes };
  writeIfChanged(file, JSON.stringify(next, null, 2) + '\n', 0o600);
}

export interface CodexTrust {
  trusted: boolean;
  /** key → current hash of each of nerdr's hooks (when known). */
  hashes?: Record<string, string>;
  /** Why not trusted / what failed. */
  reason?: string;
}

export interface CodexTrustInput {
  stateDir: string;
  nerdrBin: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  codexCommand: string[];
  appServer?: CodexAppServer;
}

/** Does codex trust nerdr's hooks? Reads config.toml; asks the app server (read-only) when it must. */
export async function codexTrust(i: CodexTrustInput): Promise<CodexTrust> {
  const flags = codexHookFlags(i.nerdrBin);
  const fp = fingerprint(flags);
  const recorded = recordedTrust(i.env);
  const cached = cachedHashes(i.stateDir, fp);
  const allMatch = (h: Record<string, string>) => Object.keys(h).length === CODEX_EVENTS.length && Object.entries(h).every(([k, v]) => recorded[k] === v);
  if (cached && allMatch(cached)) return { trusted: true, hashes: cached };
  // Unknown (or changed): ask codex. hooks/list reads config; it writes nothing.
  const server = i.appServer ?? realCodexAppServer;
  let list: CodexHookInfo[];
  try {
    list = await server.listSessionHooks(i.codexCommand, flags, i.cwd, i.env);
  } catch (e) {
    return { trusted: false, ...(cached ? { hashes: cached } : {}), reason: `could not ask codex about hook trust: ${(e as Error).message}` };
  }
  const ours = list.filter((h) => h.command === undefined || mentionsOurHook(h.command, 'codex'));
  const hashes: Record<string, string> = {};
  for (const h of ours) hashes[h.key] = h.currentHash;
  if (ours.length !== CODEX_EVENTS.length) return { trusted: false, hashes, reason: `codex listed ${ours.length} of nerdr's ${CODEX_EVENTS.length} hooks (hooks disabled in its config?)` };
  saveHashes(i.stateDir, fp, hashes);
  const trusted = ours.every((h) => h.trustStatus === 'trusted' || h.trustStatus === 'managed');
  return trusted ? { trusted, hashes } : { trusted, hashes, reason: 'codex does not trust nerdr\'s hooks yet' };
}

/** Codex's own skills folder, where install = "home" puts the nerdr skill. */
export function codexSkillsDir(env: NodeJS.ProcessEnv): string {
  return path.join(codexHome(env), 'skills');
}

/** install = "home": the nerdr skill in codex's skills folder, kept current. */
export function installCodexSkill(env: NodeJS.ProcessEnv, packageRoot: string): SkillWrite {
  return writeSkillInto(codexSkillsDir(env), packageRoot);
}

export function removeCodexSkill(env: NodeJS.ProcessEnv): boolean {
  return removeSkillFrom(codexSkillsDir(env));
}

/** install = "home": have codex record trust for nerdr's hooks. Idempotent. */
export async function trustCodexHooks(i: CodexTrustInput): Promise<CodexTrust> {
  const t = await codexTrust(i);
  if (t.trusted || !t.hashes || Object.keys(t.hashes).length !== CODEX_EVENTS.length) return t;
  const server = i.appServer ?? realCodexAppServer;
  try {
    await server.trust(i.codexCommand, Object.entries(t.hashes).map(([key, hash]) => ({ key, hash })), i.cwd, i.env);
  } catch (e) {
    return { trusted: false, hashes: t.hashes, reason: `codex could not record the trust: ${(e as Error).message}` };
  }
  const recorded = recordedTrust(i.env);
  const ok = Object.entries(t.hashes).every(([k, v]) => recorded[k] === v);
  return ok ? { trusted: true, hashes: t.hashes } : { trusted: false, hashes: t.hashes, reason: 'codex did not record the trust' };
}

/** Remove only nerdr's [hooks.state."<key>"] tables (key and hash both ours) from config.toml. */
export function removeCodexTrust(env: NodeJS.ProcessEnv, hashes: Record<string, string>): string[] {
  const file = path.join(codexHome(env), 'config.toml');
  const text = readText(file);
  if (text === undefined) return [];
  const lines = text.split('\n');
  const out: string[] = [];
  const removed: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*\[\s*hooks\s*\.\s*state\s*\.\s*"((?:[^"\\]|\\.)*)"\s*\]\s*(#.*)?$/.exec(lines[i]!);
    const key = m ? (parseJson(`"${m[1]}"`) as string | undefined) : undefined;
    if (key !== undefined && hashes[key] !== undefined) {
      let j = i + 1;
      while (j < lines.length && !/^\s*\[/.test(lines[j]!)) j++;
      const body = lines.slice(i + 1, j).join('\n');
      const h = /trusted_hash\s*=\s*"([^"]*)"/.exec(body)?.[1];
      if (h === hashes[key]) {
        removed.push(key);
        // drop the table and the blank lines that ended it
        while (out.length > 0 && out[out.length - 1]!.trim() === '' && j < lines.length) out.pop();
        i = j - 1;
        continue;
      }
    }
    out.push(lines[i]!);
  }
  if (removed.length > 0) writeIfChanged(file, out.join('\n'));
  return removed;
}

// ---- the plan ----

export async function planCodex(p: PlanInput): Promise<LaunchPlan> {
  const { ctx, notes, env } = p;
  const args = p.args;
  const plain = (): LaunchPlan => ({ argv: [...p.command, ...args], env: {}, notes, wiring: 'off', files: [] });
  const sub = args[0] !== undefined && SUBCOMMANDS.has(args[0]) ? args[0] : undefined;
  if (sub !== undefined && !TUI_SUBCOMMANDS.has(sub)) return plain();
  if (p.mode === 'off') {
    // even without hooks the TUI stays off the shared app-server daemon: nerdr stops it by pid
    const at = sub !== undefined ? 2 : 1;
    const argv = [...p.command, ...args];
    if (!hasFlag(args, ['--no-daemon'])) argv.splice(p.command.length + at - 1, 0, '--no-daemon');
    return { argv, env: {}, notes, wiring: 'off', files: [] };
  }
  if (flagValue(args, ['--remote']) !== undefined) {
    notes.push('codex --remote runs hooks in the remote app server: not wired, read from the screen');
    return plain();
  }
  const cfg = userConfig(env);
  const features = isObj(cfg?.['features']) ? (cfg!['features'] as Record<string, unknown>) : {};
  const hooksOff = features['hooks'] === false || flagValue(args, ['--disable']) === 'hooks';
  const bypass = hasFlag(args, ['--dangerously-bypass-hook-trust']);

  const ours: string[] = ['--no-daemon'];
  const files: string[] = [];
  let hooksPassed = false;
  if (!hooksOff) {
    let trust: CodexTrust;
    if (bypass) trust = { trusted: true };
    else {
      const ti: CodexTrustInput = { stateDir: ctx.stateDir, nerdrBin: ctx.nerdrBin, cwd: ctx.cwd, env, codexCommand: p.command, ...(ctx.codexAppServer ? { appServer: ctx.codexAppServer } : {}) };
      trust = p.mode === 'home' ? await trustCodexHooks(ti) : await codexTrust(ti);
    }
    if (trust.trusted) {
      ours.push(...codexHookFlags(ctx.nerdrBin));
      hooksPassed = true;
      files.push(path.join(codexHome(env), 'config.toml'));
    } else {
      notes.push(`codex hooks not passed: ${trust.reason ?? 'not trusted'}; run \`nerdr integrations install codex\` (or set [agents.codex] install = "home") to have codex trust them`);
    }
  } else notes.push('codex hooks are disabled in its config ([features] hooks = false)');
  // install = "home", or installed once by `nerdr integrations install codex`: kept current
  if (p.mode === 'home' || isNerdrSkill(readText(skillFileIn(codexSkillsDir(env))))) {
    const skill = installCodexSkill(env, ctx.packageRoot);
    if (typeof skill.result === 'string') notes.push(skill.result);
    else files.push(skill.file);
  }
  if (!hooksPassed) {
    // Fallback turn-end signal. Only when the user has no notify program of their own (-c would replace it).
    if (cfg !== undefined && cfg['notify'] === undefined) ours.push(...codexNotifyFlag(ctx.nerdrBin));
    else notes.push('codex notify not set by nerdr: you have your own notify program');
  }
  const argv = sub !== undefined ? [...p.command, sub, ...ours, ...args.slice(1)] : [...p.command, ...ours, ...args];
  return { argv, env: {}, notes, wiring: hooksPassed ? p.mode : 'off', files };
}

/** OpenAI Codex CLI, as nerdr starts, wires, reads and resumes it. */
/**
 * How Codex says its plan's limit is reached: a 429 whose body is `{"error": {"type":
 * "usage_limit_reached", "plan_type": …, "resets_at": <epoch s>}}` becomes "You've hit your
 * usage limit. … Try again at 3:05 PM." (or "… or try again at …" for some plans); the time is
 * Codex's local time, with the date ("Dec 5th, 2026 3:05 PM") when it is not today. 0.171.0 also
 * names a model's own limit ("You've hit your usage limit for …"). Shown as an error line (■)
 * above the prompt (test/fixtures/screens/codex/limited-*.txt).
 */
export const CODEX_USAGE_LIMIT: LimitWording = {
  patterns: [/You['’]ve hit your usage limit(?: for [^.]{1,80})?\.(?:.*?[Tt]ry again at (?<reset>[^()]+?)(?=\.(?:\s|$)|$))?/],
  bottomRows: 12,
  cue: /limit/,
};

export const codex: AgentIntegration = {
  id: 'codex',
  description: 'OpenAI Codex CLI',
  command: ['codex'],
  aliases: ['codex'],
  npm: '@openai/codex',
  otherPackages: [],
  herdr: { source: 'herdr:codex', reports: 'reserved', newSessionOn: ['startup', 'clear', 'resume', 'compact'], conversation: 'id', unsequencedSelect: false },
  statusFile: null,
  proven: ['0.171.0'],
  // "home" = nerdr records codex's trust for its -c hooks in ~/.codex/config.toml
  wiring: { modes: ['launch', 'home', 'off'], default: 'launch' },
  plan: planCodex,
  hooks: { map: mapCodex, refine: null },
  files: null,
  launchWiring: '--no-daemon + -c hooks.<Event>=… (only once codex trusts them; else -c notify=…); the nerdr skill with install = "home"',
  resume: {
    args: (id) => ['resume', id],
    continue: ['resume', '--last'],
    guessNewest: true,
    strip: {
      value: [],
      optional: [],
      bare: [],
      subcommands: ['resume', 'fork'],
      otherValueFlags: ['-c', '--config', '-m', '--model', '-p', '--profile', '-s', '--sandbox', '-a', '--ask-for-approval', '-C', '--cd', '-i', '--image', '--add-dir', '--enable', '--disable', '--remote', '--local-provider'],
    },
    idFlags: [],
    idSubcommand: 'resume',
    notFound: /no (saved )?(session|conversation|thread|rollout)s? found|(session|thread|rollout) not found/i,
  },
  // codex's composer takes a paste in more than one frame
  // test/agents/screens/codex/permission.txt: numbered, › marks the selection; Esc refuses
  dialogs: { top: null, row: null, denyKeys: ['Escape'] },
  enterDelayMs: 200,
  usageLimit: CODEX_USAGE_LIMIT,
};
