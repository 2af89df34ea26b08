/** Words of the shared page states (web/src/ui/states.tsx); a page may give its own loading line or failure lead. */
const en = {
  loading: 'Loading…',
  failed: 'Could not load: ',
  retry: 'Try again',
};

const ar: typeof en = {
  loading: 'جارٍ التحميل…',
  failed: 'تعذّر التحميل: ',
  retry: 'أعد المحاولة',
};

export const strings = { en, ar };
