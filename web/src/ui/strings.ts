/** Words of the dashboard kit (states, paginator); a page may give its own loading line, failure lead or page words. */
const en = {
  loading: 'Loading…',
  failed: 'Could not load: ',
  retry: 'Try again',
  previousPage: 'Previous page',
  nextPage: 'Next page',
  page: (n: number) => `Page ${n}`,
  noZone: 'No time zone matches',
  yourZone: 'this device',
};

const ar: typeof en = {
  loading: 'جارٍ التحميل…',
  failed: 'تعذّر التحميل: ',
  retry: 'أعد المحاولة',
  previousPage: 'الصفحة السابقة',
  nextPage: 'الصفحة التالية',
  page: (n: number) => `الصفحة ${n}`,
  noZone: 'لا توجد منطقة زمنية مطابقة',
  yourZone: 'هذا الجهاز',
};

export const strings = { en, ar };
