// What nerdr knows about one agent it can start, in one object per agent: each
// src/integrations/<agent>.ts exports its AgentIntegration, and index.ts gathers them in
// INTEGRATIONS. Every list of agents elsewhere (the ids, the hooked agents, herdr's names, npm
// packages, herdr's report rules, status files) is derived from it; an integration that leaves a
// field out does not compile (every field is required: `null` or `[]` says "none" on purpose).
//
// herdr knows agents nerdr cannot start too; their names and report rules are the only agent
// tables outside this folder (src/labels.ts, src/state/reports.ts), and they hold those agents
// only. docs/adding-an-agent.md says what a new agent touches.

import type { LimitWording } from '../detect/limits.js';
import type { DialogSpec } from '../inbox/dialog.js';
import type { HookFact, HookMapper } from './events/types.js';
import type { FileIntegration } from './install.js';
import type { AgentWiring, InstallMode } from './modes.js';

/** One agent's settings from config.toml `[agents.<id>]` (src/config.ts reads them; docs/config.md). */
export interface AgentConfig {
  /** launch | home | worktree | off — see docs/config.md. */
  install: InstallMode;
  /** false = never wire hooks for this agent (like `nerdr new --no-hooks`). */
  hooks: boolean;
  /** Extra arguments put before the ones given to `nerdr new`. */
  args: string[];
  /** Replaces the program (and its fixed arguments) nerdr runs for this agent. */
  command?: string[];
}

/** Where a launch happens: what every planner may read besides the agent's own config. */
export interface PlanContext {
  stateDir: string;
  configDir: string;
  packageRoot: string;
  /** Absolute path of nerdr's executable (bin/nerdr.js); hook commands run it. */
  nerdrBin: string;
  /** The agent's working folder (absolute). */
  cwd: string;
  /** false for `nerdr new --no-hooks`. */
  hooks: boolean;
  windowId?: string;
  /** The environment the agent will inherit (default process.env): HOME, CODEX_HOME, the user's OPENCODE_CONFIG_DIR … */
  env?: NodeJS.ProcessEnv;
  /** Codex only: how to reach `codex app-server` (tests pass a fake). */
  codexAppServer?: CodexAppServer;
}

export interface LaunchPlan {
  /** Program and arguments, ready for tmux (no shell). */
  argv: string[];
  /** Extra environment for the window, on top of the NERDR_ and HERDR_ variables the supervisor sets. */
  env: Record<string, string>;
  /** The conversation id when nerdr knows it before the first hook (Claude, Copilot, Gemini --session-id). */
  conversationId?: string;
  /** Human notes: why hooks are not wired, what the user must accept, … (for the log / `nerdr new`). */
  notes: string[];
  /** How hooks reach the agent in this launch. */
  wiring: InstallMode;
  /** Files nerdr wrote or relies on for this launch. */
  files: string[];
}

// ---- codex app-server (JSON-RPC over stdio), reached through PlanContext so tests can fake it ----

export interface CodexHookInfo {
  key: string;
  currentHash: string;
  trustStatus: string;
  command?: string;
  source?: string;
}

export interface CodexAppServer {
  /** hooks/list in `cwd` for a codex started with `flags`; only the session-flag hooks. */
  listSessionHooks(codexCommand: string[], flags: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<CodexHookInfo[]>;
  /** Record trust: config/batchWrite upserting hooks.state.<key>.trusted_hash in the user's config. */
  trust(codexCommand: string[], entries: { key: string; hash: string }[], cwd: string, env: NodeJS.ProcessEnv): Promise<void>;
}

/** What the per-agent planners get (launch.ts builds it from the config and the user's arguments). */
export interface PlanInput {
  agent: string;
  /** Program (+ fixed args) from config `command` or the integration's. */
  command: string[];
  /** Config `args` then the user's arguments. */
  args: string[];
  /** Effective mode: 'off' when hooks are disabled for this launch. */
  mode: InstallMode;
  /** The agent's own `[agents.<id>]` settings, defaults filled in. */
  config: AgentConfig;
  ctx: PlanContext;
  env: NodeJS.ProcessEnv;
  notes: string[];
}

/** The agent's flags that resume, continue or name a conversation (what restore strips and reads). */
export interface FlagSpec {
  /** Flags that take a value (`--x V` or `--x=V`). */
  value: string[];
  /** Flags whose value is optional (taken when the next word is not a flag). */
  optional: string[];
  /** Flags without a value. */
  bare: string[];
  /** Leading subcommands that resume (codex resume/fork), removed with their positional id. */
  subcommands?: string[];
  /** Flags of the agent that take a value, so a subcommand's positional id is found correctly. */
  otherValueFlags?: string[];
}

export interface ResumeSpec {
  /** Arguments that resume conversation `id` (restore puts them before the user's). */
  args(id: string): string[];
  /** Arguments for the newest conversation of the folder; null when the agent has none. */
  continue: string[] | null;
  /** Whether restore may take that newest conversation when no id is known (sound only where the agent keeps conversations per folder). */
  guessNewest: boolean;
  /** Flags to strip from the saved arguments before resume arguments are added, so none is doubled. */
  strip: FlagSpec;
  /** Where an id the user launched with is found in the arguments: flag groups in priority order. */
  idFlags: string[][];
  /** A leading subcommand whose first positional word is the id (codex `resume ID`). */
  idSubcommand: string | null;
  /** Screen text saying the conversation to resume does not exist (restore then starts a new one). */
  notFound: RegExp | null;
}

export interface HookSpec {
  /** A hook payload (JSON from the agent) → a normalised fact. */
  map: HookMapper;
  /**
   * A fact with what its payload could not say, from the agent's own files (Gemini: a turn end
   * whose transcript ends in "Request cancelled." is an interrupt); null: facts are final. May
   * read files; the supervisor calls it once per fact.
   */
  refine: ((fact: HookFact) => HookFact) | null;
}

/** How herdr treats reports from its own source for an agent (docs/state-rules.md). */
export type HerdrReports = 'full-lifecycle' | 'reserved' | 'session-only';

/** herdr's rules for an agent's reports (`nerdr pane report-agent …`, herdr's own integrations). */
export interface HerdrRules {
  /** herdr's own reporter for the agent: `herdr:<name>`. */
  source: string;
  /** What a report from that source may say (state/reports.ts). */
  reports: HerdrReports;
  /** Session start sources that may replace a stored conversation; 'always': any; null: none. */
  newSessionOn: readonly string[] | 'always' | null;
  /** What names its conversation: the id, or its session file's path (pi, omp). */
  conversation: 'id' | 'path';
  /** Its reporter names the conversation the user selects (start source `select`) without a seq, and is taken anyway. */
  unsequencedSelect: boolean;
}

/** The agent's own status file, read beside hooks and screen (supervisor/agent-status.ts). */
export interface StatusFileSpec {
  /** The environment variables of its process that `folder` reads. */
  vars: readonly string[];
  /** The folder of its `<pid>.json` files, from its process's environment; null when unknown. */
  folder(env: Readonly<Record<string, string | undefined>>): string | null;
}

export interface AgentIntegration {
  /** The name `nerdr new <id>` takes, and its key in INTEGRATIONS. */
  id: string;
  /** For people: "Claude Code". */
  description: string;
  /** The program and arguments that start it (config `agents.<id>.command` overrides). */
  command: string[];
  /**
   * Its label and the other names it goes by (herdr's, where herdr knows it): a hand-started one is
   * identified by them, and reports and hooks may name it by any. The id first; [] only for nerdr's demo.
   */
  aliases: readonly string[];
  /** Its npm package, where it is installed from npm (install hints); null otherwise. */
  npm: string | null;
  /** Other npm packages whose scripts are this agent (a former name, another build), for identifying it. */
  otherPackages: readonly string[];
  /** herdr's rules for reports about it from herdr's own source; null when herdr has no source for it. */
  herdr: HerdrRules | null;
  /** Its own status file, where nerdr reads one (Claude); null otherwise. */
  statusFile: StatusFileSpec | null;
  /** Versions the real-agent conformance suite drives offline (the first is the pinned one). */
  proven: string[];
  /** How its hooks can be wired (modes.ts), and the default. */
  wiring: AgentWiring;
  /** Builds the argv, environment and files of one launch; null: the command and arguments as they are. */
  plan: ((p: PlanInput) => Promise<LaunchPlan> | LaunchPlan) | null;
  /** Its hook payloads, where it runs nerdr's hooks or plugin. */
  hooks: HookSpec | null;
  /** The file `nerdr integrations install` writes for the home/worktree modes. */
  files: FileIntegration | null;
  /** How the launch mode hands it nerdr's hooks, for `nerdr integrations`; null when it has no launch mode. */
  launchWiring: string | null;
  /** How `nerdr restore` resumes its conversations; null: it cannot. */
  resume: ResumeSpec | null;
  /** How its dialogs are read and answered (`nerdr inbox`, `nerdr answer`); null: read generically, answered in its window. */
  dialogs: DialogSpec | null;
  /** Milliseconds between a typed message and its Enter (an agent that pastes slowly needs longer). */
  enterDelayMs: number;
  /**
   * How it says that it hit its usage limit, and when the limit resets (src/detect/limits.ts;
   * docs/lifecycle.md); absent: nerdr does not know its wording.
   */
  usageLimit?: LimitWording;
}

/** Screen text any agent may show when a conversation to resume does not exist. */
export const ANY_NOT_FOUND = /no conversation found|conversation[^\n]{0,40}not found|session[^\n]{0,40}not found|no session found/i;

/** The default Enter delay of a typed message. */
export const DEFAULT_ENTER_DELAY_MS = 150;

/** The launch modes of an agent without any hook integration. */
export const SCREEN_ONLY: AgentWiring = { modes: ['off'], default: 'off' };

/** A resume spec's `args` when the id follows one flag: `--resume ID`. */
export function flagThenId(flag: string): (id: string) => string[] {
  return (id) => [flag, id];
}
