/** Tool inputs that several tools share, described as GET /api/* reads them. */
import { z } from 'zod';

/** The common list parameters of api.md. */
export const paging = {
  take: z.number().int().min(1).max(5000).optional().describe('How many records to return, 1 to 5000 (default 50)'),
  skip: z.number().int().min(0).optional().describe('How many records to skip, for the next page (default 0)'),
  sort: z.enum(['asc', 'desc']).optional().describe('By creation time: desc (default, newest first) or asc'),
};

/** startDate and endDate as GET /api/analytics reads them; `when` says when they apply. */
export function dateBounds(when: string, { timezone }: { timezone: boolean }) {
  const day = timezone ? 'in timezone' : 'UTC';
  return {
    startDate: z
      .string()
      .optional()
      .describe(
        `${when}: start of the range, inclusive. ISO 8601 date (2026-03-01: the start of that day, ${day}) or date-time with offset (2026-03-01T09:30:00Z)`,
      ),
    endDate: z
      .string()
      .optional()
      .describe(`${when}: end of the range, inclusive. ISO 8601 date (the end of that day, ${day}) or date-time with offset; default now`),
  };
}

/** The bounds with the time zone that reads their dates. */
export function dateRange(when: string) {
  return {
    ...dateBounds(when, { timezone: true }),
    timezone: z.string().max(64).optional().describe(`${when}: IANA time zone (e.g. Europe/Paris; default UTC) for date-only startDate/endDate`),
  };
}
