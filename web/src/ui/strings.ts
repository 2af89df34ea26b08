/** Words of the dashboard kit (states, paginator, copy, secrets, confirmations); a page may give its own loading line, failure lead or page words. */
const en = {
  loading: 'Loading…',
  failed: 'Could not load: ',
  failedThis: 'Could not load this: ',
  cancel: 'Cancel',
  copy: 'Copy',
  copied: 'Copied',
  copyFailed: 'Could not copy: select the text and copy it yourself.',
  shownOnce: 'Copy it now: it will not be shown again.',
  done: 'Done',
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
  failedThis: 'تعذّر التحميل: ',
  cancel: 'إلغاء',
  copy: 'نسخ',
  copied: 'تم النسخ',
  copyFailed: 'تعذّر النسخ: حدّد النص وانسخه بنفسك.',
  shownOnce: 'انسخه الآن: لن يُعرض مرة أخرى.',
  done: 'تم',
  retry: 'أعد المحاولة',
  previousPage: 'الصفحة السابقة',
  nextPage: 'الصفحة التالية',
  page: (n: number) => `الصفحة ${n}`,
  noZone: 'لا توجد منطقة زمنية مطابقة',
  yourZone: 'هذا الجهاز',
};

export const strings = { en, ar };
