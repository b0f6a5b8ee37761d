// One place for errors the user sees: what failed, then what to do about it.

export interface NerdrErrorOptions {
  /** A machine-readable code: the supervisor's error code (`unknown_target`, `agent_exited`, …) or
   * the CLI's own (`no_answer`). The CLI's exit status is chosen from it (cli/exit-status.ts). */
  code?: string;
  /** An exit status that overrides the one the code maps to. */
  exitCode?: number;
}

export class NerdrError extends Error {
  readonly code: string | undefined;
  private readonly explicitExit: number | undefined;

  constructor(
    message: string,
    readonly fix?: string,
    opts: NerdrErrorOptions = {},
  ) {
    super(message);
    this.name = 'NerdrError';
    this.code = opts.code;
    this.explicitExit = opts.exitCode;
  }

  /** The exit status asked for when this error was made; undefined: the code decides. */
  get exitCode(): number | undefined {
    return this.explicitExit;
  }

  /** The text printed on stderr. */
  render(): string {
    return this.fix ? `nerdr: ${this.message}\n  fix: ${this.fix}` : `nerdr: ${this.message}`;
  }
}

/** The supervisor's error reply as the CLI shows it: its code kept, a "…; fix: …" tail split off. */
export function fromServerError(code: string, message: string): NerdrError {
  const i = message.indexOf('; fix: ');
  return i < 0 ? new NerdrError(message, undefined, { code }) : new NerdrError(message.slice(0, i), message.slice(i + '; fix: '.length), { code });
}

/** A tmux command the supervisor sent was refused: the error names the command. */
export class TmuxCommandError extends Error {
  constructor(
    /** The command's first word (`new-window`, `respawn-pane`, …). */
    readonly command: string,
    /** tmux's own words. */
    readonly tmuxText: string,
  ) {
    super(`tmux ${command} failed: ${tmuxText || 'no reason given'}`);
    this.name = 'TmuxCommandError';
  }
}
