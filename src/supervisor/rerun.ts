// One run of an async job at a time: a call while it runs returns the run under way and has it
// run once more when it ends, so the last call is always followed by a run that saw its cause
// (the latest state wins), however many calls came meanwhile.

export interface RerunOptions<T> {
  /** Whether a call made meanwhile still gets its run (a closed reader's does not); default yes. */
  more?: () => boolean;
  /** Turns a failed run into its result; without it the run under way rejects. */
  failed?: (e: Error) => T;
}

export class Rerun<T> {
  private running: Promise<T> | null = null;
  private again = false;

  constructor(
    private readonly job: () => Promise<T>,
    private readonly opts: RerunOptions<T> = {},
  ) {}

  run(): Promise<T> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        let result: T;
        do {
          this.again = false;
          result = await this.job();
        } while (this.again && (this.opts.more?.() ?? true));
        return result;
      } catch (e) {
        if (this.opts.failed) return this.opts.failed(e as Error);
        throw e;
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** The run under way, if any (it never rejects when `failed` is given). */
  get current(): Promise<T> | null {
    return this.running;
  }
}
