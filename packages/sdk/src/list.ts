/**
 * A list of every record matching a query, read page by page (skip/take) as it is iterated:
 * `for await (const link of client.links.list())`. Nothing is requested until iteration
 * begins; breaking out of the loop requests no further page.
 */
export const DEFAULT_PAGE_SIZE = 1000;

export type PageReader<T> = (skip: number, take: number) => Promise<T[]>;

/** Paging options every list takes besides the query of its endpoint. */
export interface Paging {
  /** Records to pass over before the first (default 0). */
  skip?: number;
  /** Records per request, 1 to 5000 (default 1000). */
  pageSize?: number;
}

export class List<T> implements AsyncIterable<T> {
  constructor(
    private readonly read: PageReader<T>,
    private readonly paging: Paging = {},
  ) {}

  /** The pages themselves, each the array one request answered (none is empty). */
  async *pages(): AsyncGenerator<T[], void, undefined> {
    const take = this.paging.pageSize ?? DEFAULT_PAGE_SIZE;
    for (let skip = this.paging.skip ?? 0; ; skip += take) {
      const page = await this.read(skip, take);
      if (page.length > 0) yield page;
      // A short page is the last one: no request for an empty page after it.
      if (page.length < take) return;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page;
  }

  /** Every record, in one array. */
  async toArray(): Promise<T[]> {
    const all: T[] = [];
    for await (const page of this.pages()) all.push(...page);
    return all;
  }
}
