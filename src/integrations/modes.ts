// The ways an agent can be wired to nerdr's hooks. Pure data, shared by the config loader and the
// launch planner; each agent's own modes are in its AgentIntegration (`wiring`).
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
