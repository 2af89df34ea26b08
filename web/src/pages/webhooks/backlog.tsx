import { useLang, useStrings } from '../../i18n/index.js';
import { strings } from './strings.js';
import type { Backlog } from './types.js';

const UNITS = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
] as const;

/** A wait in its largest whole unit ("3 minutes", "٣ دقائق"). */
function ageOf(ms: number, lang: string): string {
  const [unit, size] = UNITS.find(([, size]) => ms >= size) ?? UNITS[UNITS.length - 1]!;
  return new Intl.NumberFormat(lang, { style: 'unit', unit, unitDisplay: 'long', maximumFractionDigits: 0 }).format(Math.floor(Math.max(ms, 0) / size));
}

/**
 * How far behind delivery to one endpoint is: "30,000 pending · 12,000 due now, behind by
 * 3 minutes", or that nothing waits. `now` is the reader's clock (the answer's times are the
 * server's; a few seconds apart at most).
 */
export function BacklogLine({ backlog, class: className }: { backlog: Backlog | undefined; class?: string }) {
  const w = useStrings(strings);
  const lang = useLang();
  if (!backlog) return null;
  const number = new Intl.NumberFormat(lang);
  const parts =
    backlog.pending === 0
      ? [w.nothingWaiting]
      : [
          w.pendingCount(number.format(backlog.pending)),
          backlog.due > 0 && backlog.oldestDueAt
            ? w.behindBy(number.format(backlog.due), ageOf(Date.now() - new Date(backlog.oldestDueAt).getTime(), lang))
            : w.waitingRetry,
        ];
  return (
    <p class={['wh-backlog', className].filter(Boolean).join(' ')} data-pending={backlog.pending} data-due={backlog.due}>
      {parts.join(' · ')}
    </p>
  );
}
