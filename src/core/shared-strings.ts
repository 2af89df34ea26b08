/**
 * One string object per distinct value of a header that a click keeps (issue 48). A click holds
 * its visitor's User-Agent and Referer until its batch is written, up to a second later, and the
 * HTTP parser makes each request's header a new string: sharing one per value lets each request's
 * copy die young instead of being copied by the garbage collector with its click. The lookup
 * hashes the value, which the maps keyed by it later (the spool's, the writer's agent facts) then
 * find cached in the shared string. Bounded: past `max` values it starts over, and a value longer
 * than `longest` is not kept.
 */
export class SharedStrings {
  private values = new Map<string, string>();

  constructor(
    private readonly max: number,
    private readonly longest: number,
  ) {}

  /** The shared string equal to `value` (which becomes it when none is). */
  get(value: string): string {
    const known = this.values.get(value);
    if (known !== undefined) return known;
    if (value.length > this.longest) return value;
    if (this.values.size >= this.max) this.values = new Map();
    this.values.set(value, value);
    return value;
  }

  /** The same for a value that may be absent. */
  maybe(value: string | undefined): string | undefined {
    return value === undefined ? undefined : this.get(value);
  }

  /** How many values are kept. */
  get size(): number {
    return this.values.size;
  }
}
