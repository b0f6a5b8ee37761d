// Which agent runs in a pane: pure logic over a process table.
//
//   const procs = await readPaneProcesses(panePid);            // procfs.ts
//   const id = identify(procs, panePid);
//   id.agent       // 'claude' | 'codex' | … | 'demo' | null
//   id.foreground  // 'shell' (the pane's shell is in the foreground), 'job' (some other job), 'none' (unknown)
//
// Steps: the terminal's foreground process group (tpgid of the pane process) → its members →
// per-process name resolution (process names, wrappers such as node/bun/deno/python/npx/shells
// running an agent script, Nix wrappers) → the choice among members with the NERDR_AGENT /
// HERDR_AGENT override. docs/identify.md explains the rules and where nerdr departs from herdr.

/** One process, as procfs.ts reads it. */
export interface ProcInfo {
  pid: number;
  ppid: number;
  /** Process group id. */
  pgid: number;
  /** Foreground process group of the process's terminal (-1/0/undefined: none or unknown). */
  tpgid?: number;
  /** The process name (Linux: /proc/<pid>/comm, ≤15 chars; ps: may be a full path). */
  comm: string;
  /** The command line; empty when unreadable. */
  argv: string[];
  /** Only the variables identification needs (NERDR_AGENT, HERDR_AGENT), when readable. */
  env?: Record<string, string>;
}

export interface Identification {
  /** Canonical label of the agent in the foreground job, or null. */
  agent: string | null;
  /** The process that gave the answer (null without an agent). */
  pid: number | null;
  /** One line saying how the answer was reached, for logs and `nerdr explain`. */
  why: string;
  /** 'shell': the pane's own shell is in the foreground (an agent there has exited);
   *  'job': another job is in the foreground; 'none': no foreground group visible. */
  foreground: 'shell' | 'job' | 'none';
  /** The foreground process group, when visible. */
  pgid: number | null;
}

export interface IdentifyOptions {
  /**
   * Resolves a multi-component path token of process `pid` through symlinks (relative to the
   * process's cwd); resolveScript's last rule. procfs.ts has one (realpathFor). Absent: rule skipped.
   */
  realpath?: (pid: number, token: string) => string | null;
  /**
   * Programs the user's own manifests are for (ManifestRegistry.userPrograms): lookup key → the
   * manifest's name. Such a name identifies its program as the known agents' names do.
   */
  names?: ReadonlyMap<string, string>;
}

// ---------- labels and aliases ----------

export { AGENT_ALIASES, agentLabel } from '../labels.js';
import { agentKey as lookupKey, agentLabel } from '../labels.js';
import { INTEGRATIONS } from '../integrations/index.js';

/** A known agent's label for a name, else the user's manifest it names (a `.sh`-like suffix may go), else null. */
function labelOf(name: string, opts: IdentifyOptions): string | null {
  const known = agentLabel(name);
  if (known !== null || !opts.names || opts.names.size === 0) return known;
  const k = lookupKey(name);
  return opts.names.get(k) ?? opts.names.get(k.replace(/\.[^.]+$/, '')) ?? null;
}

/** nerdr's own simulated agent: never identified by a bare name, only by its script or an override. */
export const DEMO_LABEL = 'demo';

/** An override value (NERDR_AGENT / HERDR_AGENT): agent names, plus nerdr's `demo`. */
function hintLabel(value: string): string | null {
  return agentLabel(value) ?? (lookupKey(value) === DEMO_LABEL ? DEMO_LABEL : null);
}

// ---------- per-process name resolution ----------

/** Generic runtimes and shells: their own name says nothing, the script they run may. */
const NODE_LIKE = new Set(['node', 'nodejs', 'bun', 'deno']);
const SHELL_NAMES = new Set(['sh', 'bash', 'zsh', 'fish', 'dash', 'ksh', 'mksh', 'ash', 'tcsh', 'csh', 'nu', 'elvish', 'xonsh']);
const PACKAGE_RUNNERS = new Set(['npx', 'bunx', 'pnpx']);
const PY_RE = /^python(\d+(\.\d+)*)?$/;

function isGeneric(name: string): boolean {
  const k = lookupKey(name);
  return NODE_LIKE.has(k) || SHELL_NAMES.has(k) || PY_RE.test(k) || PACKAGE_RUNNERS.has(k) || k === 'tmux' || k === 'cmd' || k === 'powershell' || k === 'pwsh';
}

/** Whether a process name is an interactive shell (the pane's "terminal" state). */
export function isShellName(name: string): boolean {
  return SHELL_NAMES.has(lookupKey(baseName(stripLoginDash(name))));
}

/** Options that take the next argument as their value (herdr uses one list for every runtime). */
const VALUE_OPTS = new Set(['-r', '--require', '--loader', '--import', '--experimental-loader', '--inspect-port', '-W', '-X', '-S', '-L', '-o']);

function baseName(p: string): string {
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1] ?? p;
}

function stripLoginDash(name: string): string {
  return name.startsWith('-') ? name.slice(1) : name;
}

function unquote(s: string): string {
  const t = s.trim();
  if (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))) return t.slice(1, -1);
  return t;
}

/**
 * The first non-option argument after argv[0] (node/bun/deno/python/shells), or null when the
 * program runs inline code (`giveUp` options) or nothing.
 */
function scriptArg(args: readonly string[], giveUp: (a: string) => boolean, skipSubcommand = false): string | null {
  let subcommandSkipped = !skipSubcommand;
  for (let i = 1; i < args.length; i++) {
    const a = args[i]!;
    if (giveUp(a)) return null;
    if (a === '--') return args[i + 1] ?? null;
    if (a.startsWith('-') && a.length > 1) {
      if (VALUE_OPTS.has(a)) i++;
      continue;
    }
    if (!subcommandSkipped) {
      subcommandSkipped = true;
      if (a === 'run') continue; // `bun run x`, `deno run -A x`
    }
    return a;
  }
  return null;
}

const nodeGiveUp = (a: string): boolean => a === '-e' || a === '--eval' || a === '-p' || a === '--print' || /^-e./.test(a) || a.startsWith('--eval=') || a.startsWith('--print=');
const pythonGiveUp = (a: string): boolean => a === '-c' || a === '-m' || /^-[cm]./.test(a);
const shellGiveUp = (a: string): boolean => a === '-c' || (/^-[a-z]*c[a-z]*$/i.test(a) && !a.startsWith('--'));

/**
 * npm packages of agents (the whole package folder), from each integration's `npm` and
 * `otherPackages`. A script inside `node_modules/<package>/…` identifies the agent (herdr has three
 * such paths; nerdr generalises it, see docs/identify.md). herdr's other agents are found by
 * their unscoped package name (mastracode, cline).
 */
const AGENT_PACKAGES: ReadonlyMap<string, string> = new Map(
  Object.values(INTEGRATIONS).flatMap((i) => [...(i.npm ? [i.npm] : []), ...i.otherPackages].map((pkg): [string, string] => [pkg, i.id])),
);

/** Label for an npm package spec (`@anthropic-ai/claude-code@latest`, `codex`), or null. */
export function packageLabel(spec: string): string | null {
  let s = unquote(spec).trim().toLowerCase();
  const at = s.indexOf('@', 1);
  if (at > 0) s = s.slice(0, at); // version
  const known = AGENT_PACKAGES.get(s);
  if (known) return known;
  const unscoped = s.includes('/') ? s.slice(s.indexOf('/') + 1) : s;
  return agentLabel(unscoped);
}

interface Resolved {
  label: string;
  /** The candidate name (before canonicalisation), for score(). */
  name: string;
  via: string;
}

/** A script token: an agent by its basename, demo path, npm package or symlink target. */
function resolveScript(token: string, pid: number, opts: IdentifyOptions): Resolved | null {
  const t = unquote(token);
  if (!t) return null;
  const base = baseName(t);
  const byName = labelOf(base, opts);
  if (byName) return { label: byName, name: base, via: `script ${t}` };
  const parts = t.split(/[\\/]+/).filter((p) => p !== '');
  const noExt = parts.map((p, i) => (i === parts.length - 1 ? p.replace(/\.[^.]*$/, '') : p).toLowerCase());
  // nerdr's demo agent: …/dist/demo/agent.js (or src/demo/agent.ts under a TS runner)
  const n = noExt.length;
  if (n >= 3 && noExt[n - 1] === 'agent' && noExt[n - 2] === 'demo' && (noExt[n - 3] === 'dist' || noExt[n - 3] === 'src')) {
    return { label: DEMO_LABEL, name: DEMO_LABEL, via: `script ${t} (nerdr's demo agent)` };
  }
  // node_modules/<package>/… or node_modules/@scope/<package>/…
  const nm = noExt.lastIndexOf('node_modules');
  if (nm >= 0 && nm < n - 1) {
    const first = parts[nm + 1]!;
    const pkg = first.startsWith('@') && nm + 2 < n ? `${first}/${parts[nm + 2]!}` : first;
    const label = packageLabel(pkg);
    if (label) return { label, name: pkg, via: `script ${t} (package ${pkg})` };
  }
  if (parts.length > 1 && opts.realpath) {
    const real = opts.realpath(pid, t);
    if (real && real !== t) {
      const rb = baseName(real);
      const label = labelOf(rb, opts);
      if (label) return { label, name: rb, via: `script ${t} → ${real}` };
    }
  }
  return null;
}

/** The wrapped program of a generic runtime or shell, or null. */
function resolveWrapped(runtime: string, argv: readonly string[], pid: number, opts: IdentifyOptions): Resolved | null {
  const k = lookupKey(runtime);
  if (k === 'tmux') return null;
  if (PACKAGE_RUNNERS.has(k)) {
    const spec = scriptArg(argv, () => false);
    const label = spec ? packageLabel(spec) : null;
    return label && spec ? { label, name: spec, via: `${k} ${spec}` } : null;
  }
  if (k === 'cmd') {
    const i = argv.findIndex((a, j) => j > 0 && /^\/[ck]$/i.test(a));
    if (i < 0) return null;
    const rest = argv.slice(i + 1).join(' ').trim();
    return resolveCommandText(rest, pid, opts);
  }
  if (k === 'powershell' || k === 'pwsh') {
    for (let i = 1; i < argv.length - 1; i++) {
      const a = argv[i]!.toLowerCase();
      if (a === '-file' || a === '-f') return resolveScript(argv[i + 1]!, pid, opts);
      if (a === '-command' || a === '-c') return resolveCommandText(argv.slice(i + 1).join(' '), pid, opts);
    }
    return null;
  }
  let script: string | null;
  if (NODE_LIKE.has(k)) script = scriptArg(argv, nodeGiveUp, k === 'bun' || k === 'deno');
  else if (PY_RE.test(k)) script = scriptArg(argv, pythonGiveUp);
  else script = scriptArg(argv, shellGiveUp);
  if (script === null) return null;
  const r = resolveScript(script, pid, opts);
  if (r) return r;
  // node /usr/bin/npx claude, node …/npm exec @openai/codex
  const sb = lookupKey(baseName(script));
  if (PACKAGE_RUNNERS.has(sb) || sb === 'npm' || sb === 'npm-cli' || sb === 'pnpm' || sb === 'bun') {
    const idx = argv.indexOf(script);
    return resolveRunnerArgs(sb, argv.slice(idx), pid, opts);
  }
  return null;
}

/** `npx pkg`, `npm exec pkg`, `pnpm dlx pkg` (args[0] is the runner). */
function resolveRunnerArgs(runner: string, args: readonly string[], pid: number, opts: IdentifyOptions): Resolved | null {
  let rest = args;
  if (!PACKAGE_RUNNERS.has(runner)) {
    const sub = rest.findIndex((a, j) => j > 0 && !a.startsWith('-'));
    if (sub < 0 || !['exec', 'x', 'dlx'].includes(rest[sub]!)) return null;
    rest = rest.slice(sub);
  }
  return resolveWrapped('npx', rest, pid, opts);
}

/** A command line given as text (cmd /c, -Command): quoted first token, or the first word. */
function resolveCommandText(text: string, pid: number, opts: IdentifyOptions): Resolved | null {
  const t = text.trim();
  if (!t) return null;
  const tries: string[] = [];
  const q = t[0];
  if (q === '"' || q === "'") {
    const end = t.indexOf(q, 1);
    const inner = end > 0 ? t.slice(1, end) : t.slice(1);
    tries.push(inner, inner.split(/\s+/)[0] ?? '');
  } else tries.push(t.split(/\s+/)[0] ?? '');
  for (const x of tries) {
    const r = x ? resolveScript(x, pid, opts) : null;
    if (r) return r;
  }
  return null;
}

/** What one process is, by its names; null when no agent. */
export function resolveProcess(p: ProcInfo, opts: IdentifyOptions = {}): Resolved | null {
  const name = stripLoginDash(baseName(p.comm.trim()));
  let argv = p.argv.filter((a, i) => i === 0 || a !== '');
  // A process that rewrote its title (`npm exec claude`, `claude --resume`) has one argv string.
  if (argv.length === 1 && /\s/.test(argv[0]!.trim())) argv = argv[0]!.trim().split(/\s+/);
  const argv0 = argv[0] ? stripLoginDash(baseName(argv[0])) : '';
  const effective = argv0 || name;

  // 2. generic runtime / shell: what does it run?
  if (isGeneric(effective)) {
    const w = resolveWrapped(effective, argv, p.pid, opts);
    if (w) return w;
    // the kernel name may still say more (prctl(PR_SET_NAME) without an argv rewrite)
    const byComm = isGeneric(name) ? null : labelOf(name, opts);
    return byComm ? { label: byComm, name, via: `process name ${name}` } : null;
  }
  // 3. the effective name itself
  const direct = labelOf(effective, opts);
  if (direct) return { label: direct, name: effective, via: effective === name ? `process name ${name}` : `argv[0] ${argv[0]}` };
  const byComm = labelOf(name, opts);
  if (byComm) return { label: byComm, name, via: `process name ${name}` };
  // (herdr's step 4, a node that renamed itself — comm `MainThread` — is step 2 here: the effective
  // name is argv[0], which still says `node`.)
  // npm exec / pnpm dlx (also a process title rewritten to `npm exec <package>`)
  const ek = lookupKey(effective);
  if (ek === 'npm' || ek === 'pnpm') {
    const r = resolveRunnerArgs(ek, argv, p.pid, opts);
    if (r) return r;
  }
  // 5. argv[0] as a path token (Nix: comm .codex-wrapped, argv[0] …/bin/codex), then the first word
  if (argv[0]) {
    const r = resolveScript(argv[0], p.pid, opts);
    if (r) return { ...r, via: `argv[0] ${r.via.replace(/^script /, '')}` };
    const first = argv.join(' ').trim().split(/\s+/)[0] ?? '';
    if (first && first !== argv[0]) {
      const f = resolveScript(first, p.pid, opts);
      if (f) return { ...f, via: `command line ${f.via.replace(/^script /, '')}` };
    }
  }
  return null;
}

// ---------- override, then the choice among members ----------

/** Variables read as overrides, first wins. */
export const OVERRIDE_VARS = ['NERDR_AGENT', 'HERDR_AGENT'] as const;

function hintOf(p: ProcInfo, pane: ProcInfo | undefined): { label: string; via: string } | null {
  if (!p.env) return null;
  for (const v of OVERRIDE_VARS) {
    const value = p.env[v];
    if (value === undefined) continue;
    // `nerdr new` puts NERDR_AGENT (its launch tag) in the pane's environment, so every command
    // started there inherits it: only a value that differs from the pane process's counts.
    if (v === 'NERDR_AGENT' && pane?.env && pane.env[v] === value) continue;
    const label = hintLabel(value);
    if (label) return { label, via: `${v}=${value}` };
  }
  return null;
}

function score(p: ProcInfo, r: Resolved): number {
  const raw = stripLoginDash(baseName(p.comm.trim()));
  if (lookupKey(r.name) !== lookupKey(raw)) return 3;
  return isGeneric(raw) ? 1 : 2;
}

function describe(p: ProcInfo): string {
  return `${p.pid} (${baseName(p.comm) || '?'})`;
}

/**
 * Which agent runs in the foreground job of the pane whose process is `panePid` (tmux's
 * #{pane_pid}, normally the shell). `processes` must hold the pane process and the members of the
 * foreground group; extra processes are ignored.
 */
export function identify(processes: readonly ProcInfo[], panePid: number, opts: IdentifyOptions = {}): Identification {
  const pane = processes.find((p) => p.pid === panePid);
  const fg = pane?.tpgid !== undefined && pane.tpgid > 0 ? pane.tpgid : processes.find((p) => p.tpgid !== undefined && p.tpgid > 0)?.tpgid;
  if (!pane) return { agent: null, pid: null, why: `pane process ${panePid} not found`, foreground: 'none', pgid: null };
  if (fg === undefined) return { agent: null, pid: null, why: `no foreground process group on ${describe(pane)}'s terminal`, foreground: 'none', pgid: null };
  const members = processes.filter((p) => p.pgid === fg).sort((a, b) => a.pid - b.pid);
  if (members.length === 0) return { agent: null, pid: null, why: `foreground group ${fg} has no visible process`, foreground: 'none', pgid: fg };

  const found = (p: ProcInfo, label: string, via: string, how: string): Identification => ({
    agent: label,
    pid: p.pid,
    why: `${how} ${describe(p)}: ${via} → ${label}`,
    foreground: 'job',
    pgid: fg,
  });
  const leader = members.find((p) => p.pid === fg);
  if (leader) {
    const h = hintOf(leader, pane);
    if (h) return found(leader, h.label, h.via, 'group leader');
    const r = resolveProcess(leader, opts);
    if (r) return found(leader, r.label, r.via, 'group leader');
  }
  const others = members.filter((p) => p !== leader);
  for (const p of others) {
    const h = hintOf(p, pane);
    if (h) return found(p, h.label, h.via, 'job member');
  }
  let best: { p: ProcInfo; r: Resolved; s: number } | null = null;
  for (const p of others) {
    const r = resolveProcess(p, opts);
    if (!r) continue;
    const s = score(p, r);
    if (!best || s > best.s) best = { p, r, s };
  }
  if (best) return found(best.p, best.r.label, best.r.via, `job member (score ${best.s})`);

  const list = members.slice(0, 6).map(describe).join(', ') + (members.length > 6 ? ', …' : '');
  // The pane's own shell, or an interactive shell it started (`nerdr new --cmd bash` runs
  // `sh -c bash`): either way no job of the user's is in front.
  const shellInFront = (fg === pane.pgid && isShellName(pane.argv[0] || pane.comm)) || (leader !== undefined && members.length === 1 && isShellName(leader.argv[0] || leader.comm));
  if (shellInFront) {
    return { agent: null, pid: null, why: `the pane's shell ${describe(pane)} is in the foreground`, foreground: 'shell', pgid: fg };
  }
  return { agent: null, pid: null, why: `foreground group ${fg} [${list}]: no agent`, foreground: 'job', pgid: fg };
}
