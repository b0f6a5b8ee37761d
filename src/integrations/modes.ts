// How each agent can be wired to nerdr's hooks (agent-hooks.md summary table, seed "Knowing when an
// agent is done"). Pure data, shared by the config loader and the launch planner.
//
//   launch    hooks handed to this launch only (flags / env / files under nerdr's state dir)
//   home      nerdr's files in the agent's own config under $HOME (opt-in)
//   worktree  nerdr's files in the window's folder, kept out of git (opt-in)
//   off       nothing: the agent is read from the screen

export const INSTALL_MODES = ['launch', 'home', 'worktree', 'off'] as const;
export type InstallMode = (typeof INSTALL_MODES)[number];

export interface AgentWiring {
  /** Modes this agent supports. */
  modes: readonly InstallMode[];
  /** What nerdr does when config.toml says nothing. Never writes into the user's config. */
  default: InstallMode;
}

export const WIRING: Record<string, AgentWiring> = {
  claude: { modes: ['launch', 'off'], default: 'launch' },
  // codex: "home" = nerdr records codex's trust for its -c hooks in ~/.codex/config.toml.
  codex: { modes: ['launch', 'home', 'off'], default: 'launch' },
  opencode: { modes: ['launch', 'home', 'worktree', 'off'], default: 'launch' },
  copilot: { modes: ['launch', 'home', 'worktree', 'off'], default: 'launch' },
  // gemini: no per-launch route for a non-root user (its system settings files must be root-owned);
  // "home" = nerdr's extension in ~/.gemini/extensions/nerdr, also used whenever it is installed.
  gemini: { modes: ['home', 'off'], default: 'off' },
  // No per-launch route: only files the agent reads itself, so nothing unless asked for.
  agy: { modes: ['home', 'worktree', 'off'], default: 'off' },
  grok: { modes: ['home', 'worktree', 'off'], default: 'off' },
};

/** Modes for an agent without any hook integration (cursor, amp, droid, demo …). */
export const NO_WIRING: AgentWiring = { modes: ['off'], default: 'off' };

export function wiringFor(agent: string): AgentWiring {
  return WIRING[agent] ?? NO_WIRING;
}

/** Agents that have something for `nerdr integrations install` to write (home/worktree). */
export function installableModes(agent: string): ('home' | 'worktree')[] {
  return wiringFor(agent).modes.filter((m): m is 'home' | 'worktree' => m === 'home' || m === 'worktree');
}
