/** A hostname or key inside Arabic text, isolated so its dots and dashes stay in order (Unicode FSI … PDI). */
const bidi = (text: string) => `\u2068${text}\u2069`;

/** Words of Settings → Tracking (operations.md §19: attribution from the browser), in English and Arabic. */
const en = {
  intro:
    'Let the pages of your own sites report clicks and leads from the browser, with a publishable key and the script /attribution.js. Prefer your server (an API key) when you can: anyone can post from a browser.',
  hostnamesTitle: 'Allowed hostnames',
  hostnamesHelp:
    'Only pages on these hostnames may use the key. shop.example admits that hostname alone; *.shop.example admits its subdomains (www.shop.example, eu.shop.example) but not shop.example itself. No scheme, path or port. An empty list allows nothing.',
  newHostname: 'Hostname to add',
  add: 'Add',
  remove: 'Remove',
  removeHostname: (host: string) => `Remove ${host}`,
  noHostnames: 'No hostnames yet: no page may track.',
  alreadyListed: 'That hostname is in the list already.',
  save: 'Save hostnames',
  saved: 'Hostnames saved.',
  unsaved: 'Not saved yet.',
  clientSalesTitle: 'Sales from browsers',
  clientSalesLabel: 'Let browsers report sales',
  clientSalesHelp:
    'linktrail.trackSale() works only with this on. A partner’s commission from a browser’s lead or sale is held for your review unless the program trusts browser events.',
  clientSalesOn: 'Browsers may now report sales.',
  clientSalesOff: 'Browsers may no longer report sales.',
  keyTitle: 'Publishable key',
  keyLabel: 'Publishable key',
  keyHelp: 'Public by design: it sits in your pages and only tracks, only from the hostnames above.',
  noKey: 'None yet — save hostnames to create one.',
  previousKey: (when: string) => `The former key keeps working until ${when}.`,
  rotateTitle: 'Rotate the key',
  rotateHelp: 'Makes a new key. Publish your pages with the new one.',
  rotateChoice: 'The former key',
  keep24h: 'Keep it working for 24 hours beside the new one',
  stopNow: 'Stop it now (pages that still use it stop tracking)',
  rotate: 'Rotate key',
  rotateQuestion: 'Make a new publishable key?',
  rotateKeepBody: 'The current key keeps working for 24 hours, time to publish your pages with the new one.',
  rotateNowBody: 'The current key stops at once: pages that still carry it stop tracking until you publish them with the new one.',
  confirmRotate: 'Yes, rotate',
  rotated: 'A new key was made.',
  snippetTitle: 'Add to every page',
  snippetHelp: 'Paste it before </head> on the pages of the hostnames above. Its other options (data-outbound-domains, data-cookie-domain…) are in the README.',
  snippetLabel: 'The script tag',
  copyKey: 'publishable key',
  copySnippet: 'script tag',
};

export type TrackingStrings = typeof en;

const ar: TrackingStrings = {
  intro:
    'اسمح لصفحات مواقعك بالإبلاغ عن النقرات والعملاء المحتملين من المتصفح، بمفتاح قابل للنشر والسكربت ‎/attribution.js. فضّل خادمك (مفتاح واجهة برمجية) متى استطعت: يستطيع أيّ أحد الإرسال من متصفح.',
  hostnamesTitle: 'أسماء المضيفين المسموح بها',
  hostnamesHelp:
    'لا تستخدم المفتاحَ إلا صفحاتُ أسماء المضيفين هذه. ‎shop.example يسمح بهذا الاسم وحده؛ و‎*.shop.example يسمح بنطاقاته الفرعية (‎www.shop.example و‎eu.shop.example) لا بـ‎shop.example نفسه. بلا بروتوكول ولا مسار ولا منفذ. القائمة الفارغة لا تسمح بشيء.',
  newHostname: 'اسم المضيف المراد إضافته',
  add: 'إضافة',
  remove: 'إزالة',
  removeHostname: (host: string) => `إزالة ${bidi(host)}`,
  noHostnames: 'لا أسماء مضيفين بعد: لا يمكن لأي صفحة التتبّع.',
  alreadyListed: 'اسم المضيف هذا موجود في القائمة.',
  save: 'حفظ أسماء المضيفين',
  saved: 'حُفظت أسماء المضيفين.',
  unsaved: 'لم تُحفظ بعد.',
  clientSalesTitle: 'المبيعات من المتصفحات',
  clientSalesLabel: 'اسمح للمتصفحات بالإبلاغ عن المبيعات',
  clientSalesHelp:
    'لا تعمل ‎linktrail.trackSale()‎ إلا مع تفعيل هذا الخيار. تُحجز عمولة الشريك من عميل محتمل أو عملية بيع أبلغ عنها متصفح لمراجعتك ما لم يثق البرنامج بأحداث المتصفحات.',
  clientSalesOn: 'صار بإمكان المتصفحات الإبلاغ عن المبيعات.',
  clientSalesOff: 'لم يعد بإمكان المتصفحات الإبلاغ عن المبيعات.',
  keyTitle: 'المفتاح القابل للنشر',
  keyLabel: 'المفتاح القابل للنشر',
  keyHelp: 'علنيّ بطبيعته: يوضع في صفحاتك ولا يفعل سوى التتبّع، ومن أسماء المضيفين أعلاه فقط.',
  noKey: 'لا يوجد بعد — احفظ أسماء المضيفين لإنشائه.',
  previousKey: (when: string) => `يبقى المفتاح السابق صالحًا حتى ${when}.`,
  rotateTitle: 'تدوير المفتاح',
  rotateHelp: 'يُنشئ مفتاحًا جديدًا. انشر صفحاتك بالمفتاح الجديد.',
  rotateChoice: 'المفتاح السابق',
  keep24h: 'أبقِه صالحًا 24 ساعة إلى جانب الجديد',
  stopNow: 'أوقفه الآن (تتوقف الصفحات التي ما زالت تستخدمه عن التتبّع)',
  rotate: 'تدوير المفتاح',
  rotateQuestion: 'إنشاء مفتاح جديد قابل للنشر؟',
  rotateKeepBody: 'يبقى المفتاح الحالي صالحًا 24 ساعة، وهي مهلة لنشر صفحاتك بالمفتاح الجديد.',
  rotateNowBody: 'يتوقف المفتاح الحالي فورًا: تتوقف الصفحات التي ما زالت تحمله عن التتبّع حتى تنشرها بالمفتاح الجديد.',
  confirmRotate: 'نعم، دوّره',
  rotated: 'أُنشئ مفتاح جديد.',
  snippetTitle: 'أضِفه إلى كل صفحة',
  snippetHelp: 'الصقه قبل ‎</head>‎ في صفحات أسماء المضيفين أعلاه. خياراته الأخرى (‎data-outbound-domains و‎data-cookie-domain…) مشروحة في ملف README.',
  snippetLabel: 'وسم السكربت',
  copyKey: 'المفتاح القابل للنشر',
  copySnippet: 'وسم السكربت',
};

export const strings = { en, ar };
