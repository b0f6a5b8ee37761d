// One place for errors the user sees: what failed, then what to do about it.

export class NerdrError extends Error {
  constructor(
    message: string,
    readonly fix?: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'NerdrError';
  }

  /** The text printed on stderr. */
  render(): string {
    return this.fix ? `nerdr: ${this.message}\n  fix: ${this.fix}` : `nerdr: ${this.message}`;
  }
}
