import { AppError } from '../../core/errors.js';

/**
 * Files read on requests at once per workspace, on each instance (operations.md §13): a preview,
 * or an import's checks before its 202, reads the whole file on the event loop, in slices, for up
 * to seconds at 50 MB. Three 49 MB previews of one workspace at once held the loop 6.3 s between
 * them (issue 41); beyond this many, the next is 429 `import_reads_busy` with Retry-After.
 */
export const READS_PER_WORKSPACE = 2;
/** Seconds a refused read is told to wait: about what a 50 MB file takes to read. */
const RETRY_AFTER_S = 5;

/** The reads in flight on this instance, by workspace; the event loop they share is this process's. */
export class FileReads {
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly perWorkspace = READS_PER_WORKSPACE) {}

  /** Runs `read` in one of the workspace's places, or throws 429 when they are all taken. */
  async run<T>(workspaceId: string, read: () => Promise<T>): Promise<T> {
    const held = this.inFlight.get(workspaceId) ?? 0;
    if (held >= this.perWorkspace) {
      throw new AppError('import_reads_busy', { limit: this.perWorkspace, retryAfter: RETRY_AFTER_S }, { retryAfter: RETRY_AFTER_S });
    }
    this.inFlight.set(workspaceId, held + 1);
    try {
      return await read();
    } finally {
      const left = (this.inFlight.get(workspaceId) ?? 1) - 1;
      if (left > 0) this.inFlight.set(workspaceId, left);
      else this.inFlight.delete(workspaceId);
    }
  }
}
