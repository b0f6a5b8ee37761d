// What nerdr knows about one agent it can start, in one object per agent: each
// src/integrations/<agent>.ts exports its AgentIntegration, and index.ts gathers them in a
// Record<AgentId, AgentIntegration>, so the compiler names an agent that lacks one, and an
// integration that leaves a field out (every field is required: `null` says "none" on purpose).
//
// Two tables stay herdr's, not nerdr's, because they cover agents nerdr cannot start too:
// the names that identify an agent (src/labels.ts, herdr's 22 labels) and the rules for
// reports from herdr's own sources (src/state/reports.ts). docs/adding-an-agent.md says when
// they need a line.

import type { HookMapper } from './events/types.js';
import type { FileIntegration } from './install.js';
import type { LaunchPlan, PlanInput } from './launch.js';
import type { AgentWiring } from './modes.js';

export const AGENT_IDS = ['claude', 'codex', 'opencode', 'kilo', 'copilot', 'gemini', 'qwen', 'cursor', 'agy', 'grok', 'amp', 'droid', 'pi', 'omp', 'demo'] as const;
/** The agents `nerdr new` starts. */
export type AgentId = (typeof AGENT_IDS)[number];

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
}

export interface AgentIntegration {
  id: AgentId;
  /** For people: "Claude Code". */
  description: string;
  /** The program and arguments that start it (config `agents.<id>.command` overrides). */
  command: string[];
  /** Its npm package, where it is installed from npm (install hints); null otherwise. */
  npm: string | null;
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
  /** Milliseconds between a typed message and its Enter (an agent that pastes slowly needs longer). */
  enterDelayMs: number;
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
