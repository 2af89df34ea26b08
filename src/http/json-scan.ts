/**
 * A single pass over a JSON text that measures it before anything parses it: values in all and
 * per item, nesting depth, string lengths, keys per object, and — for a top-level array — where
 * each item starts and ends. JSON.parse of hostile shapes is what freezes a server (15 M zeros
 * take ~0.5 s, 10,000 objects with shuffled keys ~0.3 s), so a body is refused on these counts
 * first, and a large array is then parsed item by item with the event loop free in between.
 * Pure and resumable: the text can be fed in slices, so the scan never holds the loop either.
 */
export interface JsonLimits {
  /** Items of a top-level array (the workspace's bulk maximum). */
  maxItems: number;
  /** Values (arrays, objects, strings, numbers, literals) in all. */
  maxValues: number;
  /** Values in one item of a top-level array, or in a body that is not an array. */
  maxItemValues: number;
  maxDepth: number;
  /** Characters of one string, escapes counted as written. */
  maxString: number;
  /** Keys of one object. */
  maxKeys: number;
}

export type JsonProblem =
  | { kind: 'too_many_items'; limit: number; count: number }
  | { kind: 'too_many_values'; limit: number; item: number | undefined }
  | { kind: 'nesting_too_deep'; limit: number; item: number | undefined }
  | { kind: 'string_too_long'; limit: number; item: number | undefined }
  | { kind: 'too_many_keys'; limit: number; item: number | undefined }
  | { kind: 'malformed' };

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;

/** Characters that continue a number or a literal (so only its first one counts as a value). */
function continuesScalar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c === 46 || c === 43 || c === 45 || c === 69;
}

function startsScalar(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 45 || c === 116 || c === 102 || c === 110;
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

export class JsonScanner {
  private inString = false;
  private escaped = false;
  private stringStart = 0;
  private depth = 0;
  private values = 0;
  private itemValues = 0;
  /** Keys counted per open object, by depth (arrays hold -1). */
  private readonly keys: number[] = [];
  private top: 'array' | 'other' | undefined;
  private closed = false;
  /** For a top-level array: where each item's text starts and ends (end exclusive). */
  readonly itemStarts: number[] = [];
  readonly itemEnds: number[] = [];
  private itemCount = 0;
  /** After a comma of the top-level array: `[1,]` is not JSON. */
  private expectItem = false;
  problem: JsonProblem | undefined;

  constructor(private readonly limits: JsonLimits) {}

  get isArray(): boolean {
    return this.top === 'array';
  }

  /**
   * Scans the next slice of the body's bytes (UTF-8: every structural character is ASCII, and
   * no byte of a multi-byte character is); stops at the first problem but too many items,
   * which goes on being counted. String lengths are counted in bytes.
   */
  feed(bytes: Uint8Array, from = 0, to = bytes.length): JsonProblem | undefined {
    for (let i = from; i < to; i++) {
      if (this.inString) {
        i = this.skipString(bytes, i, to);
        if (this.problem !== undefined && this.problem.kind !== 'too_many_items') return this.problem;
        continue;
      }
      const c = bytes[i]!;
      if (this.closed) {
        if (!isSpace(c)) return this.fail({ kind: 'malformed' });
        continue;
      }
      if (this.top === undefined && !isSpace(c)) this.top = c === OPEN_ARRAY ? 'array' : 'other';
      if (this.top === 'array' && this.depth === 1 && !isSpace(c) && c !== COMMA && c !== CLOSE_ARRAY && !this.open) {
        this.open = true;
        this.expectItem = false;
        this.itemValues = 0;
        // Past the maximum only the count goes on (for the message), not the boundaries.
        if (++this.itemCount > this.limits.maxItems) {
          if (this.problem === undefined) this.problem = { kind: 'too_many_items', limit: this.limits.maxItems, count: 0 };
        } else this.itemStarts.push(i);
      }
      switch (c) {
        case QUOTE:
          this.inString = true;
          this.stringStart = i;
          this.value();
          break;
        case OPEN_ARRAY:
        case OPEN_OBJECT:
          if (this.depth > 0 || this.top !== 'array') this.value();
          this.depth++;
          if (this.depth > this.limits.maxDepth) return this.fail({ kind: 'nesting_too_deep', limit: this.limits.maxDepth, item: this.item() });
          this.keys[this.depth] = c === OPEN_OBJECT ? 0 : -1;
          break;
        case CLOSE_ARRAY:
        case CLOSE_OBJECT:
          if (this.top === 'array' && this.depth === 1) {
            if (this.expectItem) return this.fail({ kind: 'malformed' });
            this.endItem(i);
          }
          this.depth--;
          if (this.depth < 0) return this.fail({ kind: 'malformed' });
          if (this.depth === 0) this.closed = true;
          break;
        case COLON:
          if (++this.keys[this.depth]! > this.limits.maxKeys) return this.fail({ kind: 'too_many_keys', limit: this.limits.maxKeys, item: this.item() });
          break;
        case COMMA:
          if (this.top === 'array' && this.depth === 1) {
            // `[,1]` and `[1,,2]`: a comma with no item before it.
            if (!this.open) return this.fail({ kind: 'malformed' });
            this.endItem(i);
            this.expectItem = true;
          }
          break;
        default:
          if (startsScalar(c) && !continuesScalar(i > 0 ? bytes[i - 1]! : 0)) this.value();
      }
      if (this.problem !== undefined && this.problem.kind !== 'too_many_items') return this.problem;
    }
    return this.problem;
  }

  /** Inside a string from `i`: jumps to its closing quote (memchr), or to `to`. Returns the last index consumed. */
  private skipString(bytes: Uint8Array, i: number, to: number): number {
    for (;;) {
      if (this.escaped) {
        this.escaped = false;
        i++;
      }
      if (this.nextBackslash < i) {
        const b = bytes.indexOf(BACKSLASH, i);
        this.nextBackslash = b === -1 ? Infinity : b;
      }
      const q = bytes.indexOf(QUOTE, i);
      const end = q === -1 || q >= to ? to : q;
      if (this.nextBackslash < end) {
        // An escape: skip the escaped character (it may be a quote) and go on.
        i = this.nextBackslash + 1;
        if (i >= to) {
          this.escaped = true;
          return to - 1;
        }
        i++;
        continue;
      }
      if (end - this.stringStart > this.limits.maxString) {
        this.fail({ kind: 'string_too_long', limit: this.limits.maxString, item: this.item() });
        return to - 1;
      }
      if (end === to) return to - 1;
      this.inString = false;
      return end;
    }
  }

  private nextBackslash = -1;

  private endItem(at: number): void {
    if (this.itemStarts.length > this.itemEnds.length) this.itemEnds.push(at);
    this.open = false;
  }

  /** An item of the top-level array is open (its end not yet seen). */
  private open = false;

  private item(): number | undefined {
    return this.top === 'array' ? Math.max(0, this.itemCount - 1) : undefined;
  }

  private value(): void {
    if (++this.values > this.limits.maxValues && this.problem === undefined)
      this.problem = { kind: 'too_many_values', limit: this.limits.maxValues, item: undefined };
    if (++this.itemValues > this.limits.maxItemValues && this.problem === undefined) {
      this.problem = { kind: 'too_many_values', limit: this.limits.maxItemValues, item: this.item() };
    }
  }

  private fail(p: JsonProblem): JsonProblem {
    this.problem = p;
    return p;
  }

  /** The verdict once the whole text was fed (with the real item count when there are too many). */
  finish(): JsonProblem | undefined {
    if (this.problem?.kind === 'too_many_items') this.problem.count = this.itemCount;
    if (this.problem === undefined && (this.inString || this.depth !== 0 || (this.top === 'array' && this.open))) {
      return { kind: 'malformed' };
    }
    return this.problem;
  }
}
