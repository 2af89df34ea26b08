import { useContext, useMemo } from 'preact/hooks';
import { LangContext, type Lang } from '../../i18n/index.js';
import { formatMoney } from '../../ui/money.js';
import { bucketOf, bucketSeconds, type Interval } from './range.js';

export interface Formats {
  lang: Lang;
  number: (n: number) => string;
  /** Minor units of a currency (ISO 4217, any case) as money; a plain number when the currency is unknown. */
  money: (minor: number, currency: string) => string;
  /** An instant in a zone: date and time. */
  dateTime: (at: string | number | Date, zone?: string) => string;
  /** A date (YYYY-MM-DD) as the language writes it. */
  date: (date: string) => string;
  /** A percentage (25 is 25 %), to one decimal; `signed` writes + before a rise. */
  percent: (p: number, signed?: boolean) => string;
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
  const percent = new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 1 });
  const signed = new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 1, signDisplay: 'exceptZero' });
  return {
    lang,
    number: (n) => number.format(n),
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
    percent: (p, sign) => (sign ? signed : percent).format(p / 100),
  };
}

/** A time bucket's key in words, for the interval and language. */
export function bucketNamer(interval: Interval, lang: string): (key: string) => string {
  const opts: Intl.DateTimeFormatOptions =
    interval === 'hour' ? { dateStyle: 'medium', timeStyle: 'short' } : interval === 'day' ? { dateStyle: 'medium' } : { month: 'long', year: 'numeric' };
  const fmt = new Intl.DateTimeFormat(lang, { ...opts, timeZone: 'UTC' });
  return (b: string) => fmt.format(new Date(bucketSeconds(bucketOf(b, interval)) * 1000));
}
