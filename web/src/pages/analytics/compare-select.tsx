import type { Strings } from './strings.js';
import { COMPARES, type Compare } from './view-state.js';

const LABEL: Record<Compare, keyof Strings> = { previous: 'comparePrevious', year: 'compareYear' };

interface Props {
  value?: Compare;
  onChange: (c: Compare | undefined) => void;
  /** All time has no earlier period: the choice is kept but nothing is compared. */
  unavailable?: boolean;
  s: Strings;
}

/** "Compare with: no comparison / previous period / same period last year" (kept in the page's URL by its owner). */
export function CompareSelect({ value, onChange, unavailable, s }: Props) {
  return (
    <label class="field lt-compare">
      <span>{s.compare}</span>
      <select
        value={value ?? ''}
        disabled={unavailable}
        aria-describedby={unavailable ? 'lt-compare-note' : undefined}
        onChange={(e) => onChange(COMPARES.find((c) => c === e.currentTarget.value))}
      >
        <option value="">{s.compareNone}</option>
        {COMPARES.map((c) => (
          <option key={c} value={c}>
            {s[LABEL[c]]}
          </option>
        ))}
      </select>
      {unavailable && (
        <small id="lt-compare-note" class="muted">
          {s.compareNeedsRange}
        </small>
      )}
    </label>
  );
}

/** The comparison in words (the CSV's header, the print's heading). */
export function compareName(c: Compare | undefined, s: Strings): string {
  return c ? s[LABEL[c]] : s.compareNone;
}
