import { useContext, useMemo } from 'preact/hooks';
import { LangContext, type Lang } from '../../i18n/index.js';
import { formatByCurrency, formatMoney, type ByCurrency } from '../../ui/money.js';

export interface Formats {
  lang: Lang;
  number: (n: number) => string;
  /** Minor units of a currency (ISO 4217, any case) as money; a plain number when the currency is unknown. */
  money: (minor: number, currency: string) => string;
  /** Amounts per currency as a list of totals, one per currency ("$49.00 · €20.00"). */
  revenue: (amounts: ByCurrency) => string;
  /** An instant in a zone: date and time. */
  dateTime: (at: string | number | Date, zone?: string) => string;
  /** A date (YYYY-MM-DD) as the language writes it. */
  date: (date: string) => string;
}

/** Numbers, money and dates written with Intl for the page's language. */
export function useFormats(): Formats {
  const { lang } = useContext(LangContext);
  return useMemo(() => formats(lang), [lang]);
}

export function formats(lang: Lang): Formats {
  const number = new Intl.NumberFormat(lang);
  const date = new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeZone: 'UTC' });
  const zoned = new Map<string, Intl.DateTimeFormat>();
  return {
    lang,
    number: (n) => number.format(n),
    revenue: (amounts) => formatByCurrency(lang, amounts),
    money: (minor, currency) => formatMoney(lang, minor, currency),
    dateTime(at, zone) {
      const key = zone ?? '';
      let f = zoned.get(key);
      if (!f) {
        f = new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', ...(zone ? { timeZone: zone } : {}) });
        zoned.set(key, f);
      }
      return f.format(new Date(at));
    },
    date: (d) => date.format(new Date(`${d}T00:00:00Z`)),
  };
}
