import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { ar } from './ar.js';
import { en, type Dictionary } from './en.js';

export type Lang = 'en' | 'ar';
export const dictionaries: Record<Lang, Dictionary> = { en, ar };
const STORAGE_KEY = 'linktrail.lang';

/** The remembered choice, else the browser's first language we have, else English. */
export function initialLang(): Lang {
  const saved = localStorage.getItem(STORAGE_KEY);
  if (saved === 'en' || saved === 'ar') return saved;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = tag.toLowerCase().split('-')[0];
    if (base === 'ar' || base === 'en') return base;
  }
  return 'en';
}

/** Remembers the choice and sets <html lang dir>, so the whole layout flips for Arabic. */
export function applyLang(lang: Lang, remember: boolean): void {
  if (remember) localStorage.setItem(STORAGE_KEY, lang);
  document.documentElement.lang = lang;
  document.documentElement.dir = lang === 'ar' ? 'rtl' : 'ltr';
}

export const LangContext = createContext<{ lang: Lang; setLang: (l: Lang) => void }>({ lang: 'en', setLang: () => undefined });

/** The page's language. */
export function useLang(): Lang {
  return useContext(LangContext).lang;
}

export function useT(): Dictionary {
  return dictionaries[useContext(LangContext).lang];
}

/** A page's own strings ({ en, ar } with the same keys, in the page's folder), in the current language. */
export function useStrings<T>(strings: { en: T; ar: T }): T {
  return strings[useContext(LangContext).lang];
}
