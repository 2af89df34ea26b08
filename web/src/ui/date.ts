import { useLang } from '../i18n/index.js';

/** A date and time in the page's language ('' for none). */
export function useDate() {
  const lang = useLang();
  const format = new Intl.DateTimeFormat(lang === 'ar' ? 'ar' : 'en', { dateStyle: 'medium', timeStyle: 'short' });
  return (value: string | Date | null | undefined) => (value ? format.format(new Date(value)) : '');
}
