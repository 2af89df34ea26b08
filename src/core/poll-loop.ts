/**
 * The background loop of a queue worker (imports, mail): one step at a time, each taking at most
 * one item; after a step that found nothing (or failed), it sleeps until its delay passes or
 * wake() is called, since another instance, or a crash, may leave work that no wake announces.
 */
export class PollLoop {
  private stopped = false;
  private current: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      /** True when it took an item: the next step runs at once. */
      step: () => Promise<boolean>;
      /** How long to sleep after a step that took nothing, read each time. */
      delayMs: () => number;
      /** A step that threw: logged by the worker, then the loop sleeps as if idle. */
      onError: (err: unknown) => void;
    },
  ) {}

  /** True once stop() was called: a long step ends what it holds and returns. */
  get stopping(): boolean {
    return this.stopped;
  }

  start(): void {
    this.current = this.loop();
  }

  /** Work was just stored here: look now rather than at the next poll. */
  wake(): void {
    this.wakeUp?.();
  }

  /** Resolves after the step in hand. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.current;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let took = false;
      try {
        took = await this.options.step();
      } catch (err) {
        this.options.onError(err);
      }
      if (!took && !this.stopped) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      this.wakeUp = () => {
        clearTimeout(this.timer);
        this.wakeUp = undefined;
        resolve();
      };
      this.timer = setTimeout(() => this.wakeUp?.(), this.options.delayMs());
    });
  }
}
