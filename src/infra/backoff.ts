/**
 * Exponential backoff with jitter for retrying a resource that is away (the database for the
 * click writer): each failure doubles the wait up to `maxMs`, and the wait is drawn between half
 * and all of it, so instances that lost the database together do not retry in step.
 */
export class Backoff {
  failures = 0;
  private readyAt = 0;

  constructor(
    private readonly baseMs = 250,
    private readonly maxMs = 30_000,
    private readonly random: () => number = Math.random,
  ) {}

  /** Records a failure at `now`; returns the wait before the next attempt. */
  fail(now: number): number {
    this.failures++;
    const ceiling = Math.min(this.maxMs, this.baseMs * 2 ** Math.min(this.failures - 1, 30));
    const wait = Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
    this.readyAt = now + wait;
    return wait;
  }

  /** Records a success: the next failure starts from the base again. */
  succeed(): void {
    this.failures = 0;
    this.readyAt = 0;
  }

  /** Whether an attempt may be made at `now`. */
  ready(now: number): boolean {
    return now >= this.readyAt;
  }

  get failing(): boolean {
    return this.failures > 0;
  }
}
