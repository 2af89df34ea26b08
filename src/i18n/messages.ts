/** A message in English and Arabic. */
interface Text {
  en: string;
  ar: string;
}

/**
 * Every message the API can answer with, in English and Arabic, and an error's HTTP status
 * beside it. Placeholders in braces are filled from the error's params; the same params feed
 * both languages.
 */
export const messages = {
  credential_missing: {
    status: 401,
    en: 'Authentication required: send an API key or token as "Authorization: Bearer <key>" or "X-API-Key: <key>" (the dashboard sends its session cookie).',
    ar: 'المصادقة مطلوبة: أرسل مفتاح API أو رمزًا في الترويسة "Authorization: Bearer <key>" أو "X-API-Key: <key>" (لوحة التحكم ترسل ملف تعريف الارتباط الخاص بجلستها).',
  },
  credential_malformed: {
    status: 401,
    en: 'The credential is malformed.',
    ar: 'بيانات الاعتماد مشوّهة أو بصيغة غير صحيحة.',
  },
  credential_invalid: {
    status: 401,
    en: 'The credential (API key, token or session) is not valid.',
    ar: 'بيانات الاعتماد (مفتاح API أو الرمز أو الجلسة) غير صالحة.',
  },
  credential_revoked: { status: 401, en: 'The credential has been revoked.', ar: 'تم إبطال بيانات الاعتماد هذه.' },
  credential_expired: { status: 401, en: 'The credential has expired.', ar: 'انتهت صلاحية بيانات الاعتماد هذه.' },
  credential_conflict: {
    status: 401,
    en: 'Send exactly one credential per request, in one header line; this request carries more than one (two different keys, a repeated header or a comma-separated list).',
    ar: 'أرسل بيانات اعتماد واحدة فقط في كل طلب وفي سطر ترويسة واحد؛ هذا الطلب يحمل أكثر من واحدة (مفتاحان مختلفان أو ترويسة مكرّرة أو قائمة مفصولة بفواصل).',
  },
  admin_unauthorized: {
    status: 401,
    en: 'The operator token is missing or wrong.',
    ar: 'رمز المشغّل مفقود أو غير صحيح.',
  },
  missing_scopes: {
    status: 403,
    en: 'The credential lacks the scopes this operation needs: {scopes}.',
    ar: 'بيانات الاعتماد لا تملك الصلاحيات التي تحتاجها هذه العملية: {scopes}.',
  },
  rate_limited: {
    status: 429,
    en: 'Rate limit exceeded for this workspace. Retry in {retryAfter} seconds.',
    ar: 'تم تجاوز حد الطلبات لمساحة العمل هذه. أعد المحاولة بعد {retryAfter} ثانية.',
  },
  heavy_requests_busy: {
    status: 429,
    en: 'This workspace already has {limit} expensive requests (lists with statistics, analytics, exports) running or waiting on this server. Retry in {retryAfter} seconds.',
    ar: 'لدى مساحة العمل هذه {limit} من الطلبات المكلفة (القوائم مع الإحصاءات، والتحليلات، والتصدير) قيد التنفيذ أو الانتظار على هذا الخادم. أعد المحاولة بعد {retryAfter} ثانية.',
  },
  query_timeout: {
    status: 503,
    en: 'This request took longer than the database allows and was stopped. Narrow it (a shorter date range, a smaller take) or retry later.',
    ar: 'استغرق هذا الطلب وقتًا أطول مما تسمح به قاعدة البيانات فأُوقف. ضيّق نطاقه (مدة أقصر أو قيمة take أصغر) أو أعد المحاولة لاحقًا.',
  },
  workspace_required: {
    status: 400,
    en: 'Requests made with a session name their workspace in the X-Workspace-Id header.',
    ar: 'الطلبات المرسلة بجلسة تسجيل دخول تحدد مساحة العمل في الترويسة X-Workspace-Id.',
  },
  session_required: {
    status: 401,
    en: "This route needs a signed-in session (the dashboard's cookie); API keys and tokens are not accepted here.",
    ar: 'يتطلب هذا المسار جلسة تسجيل دخول (ملف تعريف الارتباط الخاص بلوحة التحكم)؛ لا تُقبل هنا مفاتيح API ولا الرموز.',
  },
  person_required: {
    status: 401,
    en: 'This route acts for a person: send the session cookie or a human token, not an API key.',
    ar: 'يعمل هذا المسار باسم شخص: أرسل ملف تعريف الارتباط الخاص بالجلسة أو رمزًا شخصيًا، لا مفتاح API.',
  },
  not_a_member: {
    status: 401,
    en: 'You are not a member of the workspace named by X-Workspace-Id.',
    ar: 'لست عضوًا في مساحة العمل المحددة في الترويسة X-Workspace-Id.',
  },
  cross_site_sign_in: {
    status: 403,
    en: "Signing in is possible only from this site's own pages.",
    ar: 'لا يمكن تسجيل الدخول إلا من صفحات هذا الموقع نفسه.',
  },
  mfa_failed: {
    status: 401,
    en: 'Wrong code. {attemptsLeft} attempts left before you must enter your password again.',
    ar: 'الرمز غير صحيح. بقيت {attemptsLeft} محاولات قبل أن يلزمك إدخال كلمة المرور من جديد.',
  },
  mfa_restart: {
    status: 401,
    en: 'This sign-in has expired or took too many wrong codes. Sign in with your password again.',
    ar: 'انتهت صلاحية تسجيل الدخول هذا أو أُدخلت فيه رموز خاطئة كثيرة. سجّل الدخول بكلمة المرور من جديد.',
  },
  mfa_throttled: {
    status: 429,
    en: 'Too many wrong codes for this account in the last hour. Try again later.',
    ar: 'أُدخلت رموز خاطئة كثيرة لهذا الحساب خلال الساعة الماضية. حاول لاحقًا.',
  },
  passkey_failed: {
    status: 401,
    en: 'This passkey was not accepted. Try again, or sign in with your password.',
    ar: 'لم يُقبل مفتاح المرور هذا. حاول مجددًا أو سجّل الدخول بكلمة المرور.',
  },
  password_reset_unavailable: {
    status: 400,
    en: 'This server sends no mail, so it cannot mail a reset link. Ask the operator for one (linktrail users reset-link).',
    ar: 'لا يرسل هذا الخادم بريدًا، فلا يمكنه إرسال رابط إعادة التعيين. اطلب رابطًا من مشغّل الخدمة (linktrail users reset-link).',
  },
  login_failed: { status: 401, en: 'Wrong email or password.', ar: 'البريد الإلكتروني أو كلمة المرور غير صحيحة.' },
  login_throttled: {
    status: 429,
    en: 'Too many failed sign-in attempts. Retry in {retryAfter} seconds.',
    ar: 'محاولات تسجيل دخول فاشلة كثيرة. أعد المحاولة بعد {retryAfter} ثانية.',
  },
  mfa_required: {
    status: 403,
    en: 'This workspace requires two-factor sign-in. Turn it on in Account → Security (/api/me/mfa), then try again.',
    ar: 'تتطلب مساحة العمل هذه تسجيل الدخول بخطوتين. فعّله من الحساب ← الأمان (/api/me/mfa) ثم حاول مجددًا.',
  },
  owner_required: {
    status: 403,
    en: 'Only an owner of this workspace can do this.',
    ar: 'لا يستطيع القيام بهذا إلا مالك مساحة العمل.',
  },
  route_not_found: {
    status: 404,
    en: 'No endpoint {method} {path}.',
    ar: 'لا توجد نقطة نهاية {method} {path}.',
  },
  not_found: { status: 404, en: 'Not found: {resource} {id}.', ar: 'غير موجود: {resource} {id}.' },
  malformed_json: {
    status: 400,
    en: 'The request body is not valid JSON.',
    ar: 'جسم الطلب ليس JSON صالحًا.',
  },
  empty_body: { status: 400, en: 'The request body is empty.', ar: 'جسم الطلب فارغ.' },
  unsupported_content_type: {
    status: 400,
    en: 'Unsupported content type; send application/json.',
    ar: 'نوع المحتوى غير مدعوم؛ أرسل application/json.',
  },
  body_too_large: { status: 413, en: 'The request body is too large.', ar: 'جسم الطلب كبير جدًا.' },
  invalid_field: { status: 400, en: 'Invalid {field}: {reason}.', ar: 'قيمة غير صالحة في {field}: {reasonAr}.' },
  invalid_query: { status: 400, en: 'Invalid query parameter {field}: {reason}.', ar: 'معامل الاستعلام {field} غير صالح: {reasonAr}.' },
  invalid_path: { status: 400, en: 'Invalid path parameter {field}: {reason}.', ar: 'معامل المسار {field} غير صالح: {reasonAr}.' },
  too_many_items: {
    status: 400,
    en: 'Too many items: this workspace accepts at most {limit} items per request (got {count}).',
    ar: 'عدد العناصر كبير جدًا: تقبل مساحة العمل هذه {limit} عنصرًا على الأكثر في الطلب الواحد (وصل {count}).',
  },
  bad_request: { status: 400, en: 'Bad request: {detail}.', ar: 'طلب غير صالح: {detail}.' },
  webhook_limit: {
    status: 400,
    en: 'This workspace already has {limit} webhook endpoints, the most it may have: delete one before adding another.',
    ar: 'لدى مساحة العمل هذه {limit} نقطة استقبال للويب هوك، وهو الحد الأقصى: احذف واحدة قبل إضافة أخرى.',
  },
  webhook_disabled: {
    status: 400,
    en: 'This webhook endpoint is disabled: enable it (PATCH with "disabled": false) before sending to it.',
    ar: 'نقطة استقبال الويب هوك هذه معطّلة: فعّلها (PATCH مع "disabled": false) قبل الإرسال إليها.',
  },
  internal_error: {
    status: 500,
    en: 'An unexpected error occurred. Please try again later.',
    ar: 'حدث خطأ غير متوقع. يرجى المحاولة لاحقًا.',
  },
  unavailable: {
    status: 503,
    en: 'The service is temporarily unavailable (its database cannot be reached). Please retry shortly.',
    ar: 'الخدمة غير متاحة مؤقتًا (تعذّر الوصول إلى قاعدة البيانات). يرجى إعادة المحاولة بعد قليل.',
  },
  secret_unopenable: {
    status: 503,
    en: "A stored secret cannot be opened: the server's SECRET was changed without SECRET_PREVIOUS. The operator must set it back (or set SECRET_PREVIOUS); retry later.",
    ar: 'تعذّر فتح سرٍّ مخزَّن: تغيّر SECRET في الخادم دون ضبط SECRET_PREVIOUS. على مشغّل الخدمة إعادته (أو ضبط SECRET_PREVIOUS)؛ أعد المحاولة لاحقًا.',
  },
  stripe_connection_exists: {
    status: 400,
    en: 'This workspace already has a Stripe connection; delete it (DELETE /api/integrations/stripe) to make a new one.',
    ar: 'لمساحة العمل هذه اتصال Stripe قائم بالفعل؛ احذفه (DELETE /api/integrations/stripe) لإنشاء اتصال جديد.',
  },
  stripe_no_connection: {
    status: 404,
    en: 'This workspace has no Stripe connection; create one with POST /api/integrations/stripe.',
    ar: 'ليس لمساحة العمل هذه اتصال Stripe؛ أنشئه عبر POST /api/integrations/stripe.',
  },
  stripe_not_connected: {
    status: 400,
    en: 'This Stripe connection is not finished: its signing secret has not been given yet (PUT /api/integrations/stripe).',
    ar: 'اتصال Stripe هذا غير مكتمل: لم يُقدَّم سرّ التوقيع الخاص به بعد (PUT /api/integrations/stripe).',
  },
  stripe_signature: {
    status: 400,
    en: "The Stripe-Signature header does not prove this body came from Stripe ({problem}): it must be recent (5 minutes) and signed with this connection's signing secret.",
    ar: 'ترويسة Stripe-Signature لا تثبت أن هذا الجسم مرسَل من Stripe ({problem}): يجب أن تكون حديثة (خلال 5 دقائق) وموقَّعة بسرّ التوقيع الخاص بهذا الاتصال.',
  },
  stripe_event_invalid: {
    status: 400,
    en: 'The request body is not a Stripe event object.',
    ar: 'جسم الطلب ليس كائن حدث من Stripe.',
  },
  import_not_csv: {
    status: 400,
    en: 'The file is not a CSV text file in UTF-8 ({detail}): save it as "CSV UTF-8" and send it again.',
    ar: 'الملف ليس ملف CSV نصيًا بترميز UTF-8 ({detailAr}): احفظه بصيغة "CSV UTF-8" وأرسله مرة أخرى.',
  },
  import_empty: {
    status: 400,
    en: 'The file is empty: send a CSV whose first line names its columns, followed by one link a line.',
    ar: 'الملف فارغ: أرسل ملف CSV يسمّي سطره الأول أعمدته، يليه رابط واحد في كل سطر.',
  },
  import_too_large: {
    status: 400,
    en: 'The file is {size} bytes; an import takes at most {limit} bytes (50 MB): split it into several files.',
    ar: 'حجم الملف {size} بايت؛ يقبل الاستيراد {limit} بايت على الأكثر (50 ميغابايت): قسّمه إلى عدة ملفات.',
  },
  import_too_many_rows: {
    status: 400,
    en: 'The file holds more than {limit} rows; an import takes at most {limit}: split it into several files.',
    ar: 'يحتوي الملف على أكثر من {limit} صف؛ يقبل الاستيراد {limit} صف على الأكثر: قسّمه إلى عدة ملفات.',
  },
  import_too_many_cells: {
    status: 400,
    en: 'Row {line} of the file holds more than {limit} cells; an import reads at most {limit} a row: remove the extra delimiters (or empty columns) from that row and send the file again.',
    ar: 'يحتوي الصف {line} من الملف على أكثر من {limit} خلية؛ يقرأ الاستيراد {limit} خلية على الأكثر في كل صف: احذف الفواصل الزائدة (أو الأعمدة الفارغة) من ذلك الصف وأرسل الملف مرة أخرى.',
  },
  import_no_destination: {
    status: 400,
    en: 'The file has no destination column for source {source}: name one {expected}, or map yours with mapping={"url":"<column>"}. Columns found: {columns}.',
    ar: 'لا يحتوي الملف على عمود للوجهة في المصدر {source}: سمِّ أحدها {expected}، أو اربط عمودك عبر mapping={"url":"<column>"}. الأعمدة الموجودة: {columns}.',
  },
  import_no_affiliate_columns: {
    status: 400,
    en: 'The file is not an export of {source} this import reads: a partners export needs an e-mail or referral key column ({expected} among others), a referrals export a customer column beside its partner. Columns found: {columns}.',
    ar: 'الملف ليس تصديرًا من {source} يقرؤه هذا الاستيراد: يحتاج تصدير الشركاء إلى عمود للبريد الإلكتروني أو لمفتاح الإحالة ({expected} وغيرها)، ويحتاج تصدير الإحالات إلى عمود للعميل بجانب شريكه. الأعمدة الموجودة: {columns}.',
  },
  import_unknown_column: {
    status: 400,
    en: 'mapping gives {field} the column "{column}", which the file\'s first line does not name. Columns found: {columns}.',
    ar: 'يربط mapping الحقل {field} بالعمود "{column}"، وهو عمود لا يذكره السطر الأول من الملف. الأعمدة الموجودة: {columns}.',
  },
  import_running: {
    status: 409,
    en: 'An import is running in this workspace already ({id}): wait until it is done (GET /api/imports/{id}), then send the next file.',
    ar: 'يجري استيراد في مساحة العمل هذه بالفعل ({id}): انتظر حتى ينتهي (GET /api/imports/{id})، ثم أرسل الملف التالي.',
  },
  import_reads_busy: {
    status: 429,
    en: 'This workspace already has {limit} files being read (import previews, or imports being checked before they start): send this one again in {retryAfter} seconds.',
    ar: 'بلغ عدد الملفات قيد القراءة في مساحة العمل هذه الحدَّ ({limit}؛ معاينات استيراد، أو عمليات استيراد يجري فحصها قبل بدئها): أرسل هذا الملف مرة أخرى بعد {retryAfter} ثانية.',
  },
  import_collection_required: {
    status: 400,
    en: 'The file has no collection column: say which collection its links go to with collection=<name or id> (a new name creates it).',
    ar: 'لا يحتوي الملف على عمود للمجموعة: حدّد المجموعة التي تذهب إليها روابطه عبر collection=<الاسم أو المعرّف> (الاسم الجديد يُنشئها).',
  },
  import_mapping_invalid: {
    status: 400,
    en: 'mapping must be a URL-encoded JSON object of our field names to the file\'s column names, such as {"url":"Long URL"}.',
    ar: 'يجب أن يكون mapping كائن JSON مرمّزًا للرابط يربط أسماء حقولنا بأسماء أعمدة الملف، مثل {"url":"Long URL"}.',
  },
  import_unknown_field: {
    status: 400,
    en: 'mapping names "{field}", which is not a field an import reads; use {fields}.',
    ar: 'يذكر mapping الحقل "{field}"، وهو ليس حقلًا يقرؤه الاستيراد؛ استخدم {fields}.',
  },
  import_not_ndjson: {
    status: 400,
    en: 'The file is not a Linktrail export (NDJSON from GET /api/export: one JSON object a line, in UTF-8): {detail}.',
    ar: 'الملف ليس ملف تصدير من Linktrail (‏NDJSON من GET /api/export: كائن JSON واحد في كل سطر، بترميز UTF-8): {detailAr}.',
  },
  // A line of an import's report, never an error answer: no status.
  import_left_out: {
    en: 'Imported without {what}: {reason}.',
    ar: 'استُورد دون {what}: {reasonAr}.',
  },
  host_invalid: {
    status: 400,
    en: 'Invalid host "{host}": give a domain name such as brand.example (letters, digits and hyphens, at least two labels; no scheme, path or port).',
    ar: 'المضيف "{~host}" غير صالح: أدخل اسم نطاق مثل brand.example (أحرف وأرقام وشرطات، ومقطعان على الأقل؛ دون بروتوكول أو مسار أو منفذ).',
  },
  host_ip_literal: {
    status: 400,
    en: 'Invalid host "{host}": an IP address cannot be claimed; claim a domain name.',
    ar: 'المضيف "{~host}" غير صالح: لا يمكن المطالبة بعنوان IP؛ طالب باسم نطاق.',
  },
  host_reserved: {
    status: 400,
    en: 'The host "{host}" is reserved by this server and cannot be claimed.',
    ar: 'المضيف "{~host}" محجوز لهذا الخادم ولا يمكن المطالبة به.',
  },
  key_taken: {
    status: 400,
    en: 'Invalid {field}: the short path {key} on {domain} is taken (by a link, an alias or a short id; a path a link gave up stays taken for 30 days).',
    ar: 'قيمة غير صالحة في {field}: المسار المختصر {~key} على {~domain} مأخوذ (لرابط أو اسم بديل أو معرّف مختصر؛ والمسار الذي تخلّى عنه رابط يبقى مأخوذًا 30 يومًا).',
  },
  key_reserved: {
    status: 400,
    en: 'Invalid {field}: the short path {key} is a path of the service itself on the short-link host; choose another.',
    ar: 'قيمة غير صالحة في {field}: المسار المختصر {~key} مسار تستخدمه الخدمة نفسها على مضيف الروابط المختصرة؛ اختر مسارًا آخر.',
  },
  domain_not_active: {
    status: 400,
    en: 'Invalid {field}: {domain} is neither an active domain of this workspace nor the short-link host (verify the domain first).',
    ar: 'قيمة غير صالحة في {field}: {~domain} ليس نطاقًا نشطًا لمساحة العمل هذه ولا مضيف الروابط المختصرة (تحقّق من النطاق أولًا).',
  },
  host_taken: {
    status: 400,
    en: 'The host {host} is already held by another workspace (verified first).',
    ar: 'المضيف {~host} تملكه مساحة عمل أخرى بالفعل (تحققت منه أولًا).',
  },
  domain_txt_missing: {
    status: 400,
    en: 'No TXT record was found at {txtName}. Add one with the value {txtValue}, wait for it to propagate, then verify again; the claim stays pending.',
    ar: 'لم يُعثر على سجل TXT في {~txtName}. أضف سجلًا بالقيمة {~txtValue}، وانتظر انتشاره، ثم أعد التحقق؛ تبقى المطالبة معلّقة.',
  },
  domain_txt_mismatch: {
    status: 400,
    en: 'The TXT records at {txtName} ({found}) do not include {txtValue}. Add that value, then verify again; the claim stays pending.',
    ar: 'سجلات TXT في {~txtName} ({~found}) لا تتضمن القيمة {~txtValue}. أضف هذه القيمة ثم أعد التحقق؛ تبقى المطالبة معلّقة.',
  },
  domain_dns_failed: {
    status: 400,
    en: 'The DNS lookup of {txtName} failed ({problem}); the claim stays pending. Retry later.',
    ar: 'فشل استعلام DNS عن {~txtName} ({problem})؛ تبقى المطالبة معلّقة. أعد المحاولة لاحقًا.',
  },
  qr_logo_type: {
    status: 400,
    en: 'A logo is the request body, a PNG (Content-Type: image/png) or an SVG (image/svg+xml); this request is {type}.',
    ar: 'الشعار هو جسم الطلب، صورة PNG (Content-Type: image/png) أو SVG (image/svg+xml)؛ نوع هذا الطلب {~type}.',
  },
  qr_logo_unreadable: {
    status: 400,
    en: 'The logo cannot be read as {format} ({detail}): export it again from your design tool and upload that file.',
    ar: 'تعذّرت قراءة الشعار بصيغة {format} ({~detail}): صدّره مرة أخرى من أداة التصميم وارفع ذلك الملف.',
  },
  qr_logo_shape: {
    status: 400,
    en: 'The logo is {width} × {height} px: a logo may be at most {ratio} times as wide as it is high (or as high as it is wide), and a PNG at most {side} px on a side.',
    ar: 'أبعاد الشعار {~size} بكسل: يجب ألا يزيد عرض الشعار على {ratio} أضعاف ارتفاعه (ولا ارتفاعه على {ratio} أضعاف عرضه)، وألا يتجاوز ضلع صورة PNG ‏{side} بكسل.',
  },
  qr_logo_blank: {
    status: 400,
    en: 'The logo draws nothing: it is fully transparent once drawn. Text, scripts and links to other files in an SVG are not drawn: convert text to outlines and embed images in the file.',
    ar: 'الشعار لا يرسم شيئًا: يصبح شفافًا تمامًا بعد رسمه. لا تُرسم في ملف SVG النصوصُ ولا السكربتات ولا الروابط إلى ملفات أخرى: حوّل النص إلى مسارات (outlines) وضمّن الصور داخل الملف.',
  },
  qr_logo_png_blank: {
    status: 400,
    en: 'The PNG draws nothing: it is fully transparent, or its image data is damaged. Export it again and upload that file.',
    ar: 'صورة PNG لا ترسم شيئًا: إما أنها شفافة تمامًا وإما أن بيانات الصورة فيها تالفة. صدّرها مرة أخرى وارفع ذلك الملف.',
  },
  qr_logo_too_slow: {
    status: 400,
    en: 'The logo is too complex to draw (it took more than {seconds} seconds): simplify it, or upload it as a PNG.',
    ar: 'الشعار معقّد إلى حدّ يتعذّر معه رسمه (استغرق أكثر من {seconds} ثوانٍ): بسّطه أو ارفعه بصيغة PNG.',
  },
  qr_logo_limit: {
    status: 400,
    en: 'This workspace already has {limit} logos, the most it may have: delete one before uploading another.',
    ar: 'لدى مساحة العمل هذه {limit} شعار، وهو الحد الأقصى: احذف واحدًا قبل رفع شعار آخر.',
  },
  utm_template_name_taken: {
    status: 409,
    en: 'A UTM template named "{name}" already exists in this workspace: choose another name, or change that template.',
    ar: 'يوجد في مساحة العمل هذه قالب UTM باسم "{name}": اختر اسمًا آخر أو عدّل ذلك القالب.',
  },
  utm_template_limit: {
    status: 400,
    en: 'This workspace already has {limit} UTM templates, the most it may have: delete one before saving another.',
    ar: 'لدى مساحة العمل هذه {limit} قالب UTM، وهو الحد الأقصى: احذف واحدًا قبل حفظ قالب آخر.',
  },
  sso_not_configured: {
    status: 404,
    en: 'This workspace has no single sign-on connection (PUT /api/sso makes one).',
    ar: 'لا يوجد لمساحة العمل هذه اتصال دخول موحّد (يُنشأ عبر PUT /api/sso).',
  },
  sso_issuer_blocked: {
    status: 400,
    en: 'The identity provider {issuer} resolves to {address}, an address this server may not reach: private addresses are allowed only inside SSO_ALLOWED_CIDRS (set by the operator). Nothing was saved.',
    ar: 'مزوّد الهوية {~issuer} يشير إلى العنوان {~address}، وهو عنوان لا يُسمح لهذا الخادم بالوصول إليه: العناوين الخاصة مسموحة فقط داخل نطاقات SSO_ALLOWED_CIDRS (يضبطها المشغّل). لم يُحفظ شيء.',
  },
  sso_issuer_unreachable: {
    status: 400,
    en: 'The OpenID configuration of {issuer} could not be read ({problem}): check the issuer URL (its /.well-known/openid-configuration must answer with this exact issuer). Nothing was saved.',
    ar: 'تعذّرت قراءة إعدادات OpenID لدى {~issuer} ‏({~problem}): تحقّق من رابط المُصدِر (يجب أن يجيب ‎/.well-known/openid-configuration بالمُصدِر نفسه تمامًا). لم يُحفظ شيء.',
  },
  sso_txt_missing: {
    status: 400,
    en: 'No TXT record was found at {txtName}. Add one with the value {txtValue}, wait for it to propagate, then verify again; the domain admits nobody until then.',
    ar: 'لم يُعثر على سجل TXT في {~txtName}. أضف سجلًا بالقيمة {~txtValue}، وانتظر انتشاره، ثم أعد التحقق؛ لن يُسمح بالدخول عبر هذا النطاق قبل ذلك.',
  },
  sso_txt_mismatch: {
    status: 400,
    en: 'The TXT records at {txtName} ({found}) do not include {txtValue}. Add that value, then verify again.',
    ar: 'سجلات TXT في {~txtName} ‏({~found}) لا تتضمن القيمة {~txtValue}. أضف هذه القيمة ثم أعد التحقق.',
  },
  sso_dns_failed: {
    status: 400,
    en: 'The DNS lookup of {txtName} failed ({problem}). Retry later.',
    ar: 'فشل استعلام DNS عن {~txtName} ‏({problem}). أعد المحاولة لاحقًا.',
  },
  sso_domain_taken: {
    status: 400,
    en: 'The domain {domain} is already verified for the single sign-on of another workspace.',
    ar: 'النطاق {~domain} موثَّق مسبقًا للدخول الموحّد في مساحة عمل أخرى.',
  },
  sso_required: {
    status: 403,
    en: 'This account signs in with single sign-on: use “Sign in with SSO” with your work e-mail.',
    ar: 'يسجّل هذا الحساب الدخول عبر الدخول الموحّد: استخدم «الدخول عبر SSO» ببريدك الإلكتروني للعمل.',
  },
  sso_unavailable: {
    status: 404,
    en: 'Single sign-on is not set up for this workspace or e-mail domain. Sign in with your password, or ask an owner of your workspace.',
    ar: 'الدخول الموحّد غير مُعدّ لمساحة العمل هذه أو لنطاق البريد هذا. سجّل الدخول بكلمة المرور، أو اسأل مالك مساحة العمل.',
  },
  sso_provider_down: {
    status: 502,
    en: 'Your identity provider cannot be reached right now ({problem}). Try again in a few minutes; if it persists, tell an owner of your workspace.',
    ar: 'يتعذّر الوصول إلى مزوّد الهوية الآن ({~problem}). أعد المحاولة بعد دقائق؛ وإن استمر الأمر فأبلغ مالك مساحة العمل.',
  },
  sso_state_invalid: {
    status: 400,
    en: 'This sign-in has expired, was already used, or was started in another browser. Start again from the sign-in page.',
    ar: 'انتهت صلاحية تسجيل الدخول هذا، أو استُخدم من قبل، أو بدأ في متصفح آخر. ابدأ من جديد من صفحة تسجيل الدخول.',
  },
  sso_cancelled: {
    status: 400,
    en: 'The sign-in was cancelled at your identity provider, so nobody was signed in. Start again from the sign-in page if you meant to sign in.',
    ar: 'أُلغي تسجيل الدخول لدى مزوّد الهوية، فلم يُسجَّل دخول أحد. ابدأ من جديد من صفحة تسجيل الدخول إن كنت تقصد تسجيل الدخول.',
  },
  sso_callback_malformed: {
    status: 400,
    en: 'The identity provider sent your browser back without a sign-in code, so the sign-in could not be finished. Start again from the sign-in page.',
    ar: 'أعاد مزوّد الهوية متصفحك دون رمز تسجيل الدخول، فتعذّر إكمال تسجيل الدخول. ابدأ من جديد من صفحة تسجيل الدخول.',
  },
  sso_form_unreadable: {
    status: 400,
    en: 'This sign-in form could not be read. Start again from the sign-in page.',
    ar: 'تعذّرت قراءة نموذج تسجيل الدخول هذا. ابدأ من جديد من صفحة تسجيل الدخول.',
  },
  sso_refused: {
    status: 400,
    en: 'The answer of the identity provider was refused ({problem}). Start again; if it persists, tell an owner of your workspace.',
    ar: 'رُفض ردّ مزوّد الهوية ({~problem}). ابدأ من جديد؛ وإن استمر الأمر فأبلغ مالك مساحة العمل.',
  },
  sso_email_unverified: {
    status: 403,
    en: 'Your identity provider did not confirm that your e-mail address is verified, so it cannot sign you in here.',
    ar: 'لم يؤكّد مزوّد الهوية أن عنوان بريدك الإلكتروني موثَّق، لذا لا يمكنه تسجيل دخولك هنا.',
  },
  sso_domain_unverified: {
    status: 403,
    en: 'The e-mail domain {domain} is not a verified domain of this workspace’s single sign-on.',
    ar: 'نطاق البريد {~domain} ليس نطاقًا موثَّقًا للدخول الموحّد في مساحة العمل هذه.',
  },
  sso_email_invalid: {
    status: 403,
    en: 'Your identity provider gave an e-mail address ({email}) that cannot be an account’s here (letters, digits and . _ - + before the @, a domain name after it).',
    ar: 'أعطى مزوّد الهوية عنوان بريد ({~email}) لا يصلح لحساب هنا (أحرف وأرقام و. _ - + قبل @، واسم نطاق بعدها).',
  },
  sso_link_required: {
    status: 403,
    en: 'An account with this e-mail address already exists. Sign in with your password, then link single sign-on from your account page (Account → Single sign-on).',
    ar: 'يوجد حساب بعنوان البريد هذا مسبقًا. سجّل الدخول بكلمة المرور، ثم اربط الدخول الموحّد من صفحة حسابك (الحساب ← الدخول الموحّد).',
  },
  sso_link_email_mismatch: {
    status: 403,
    en: 'The identity provider signed in a different e-mail address than this account’s ({email}): link it with the identity of that address.',
    ar: 'سجّل مزوّد الهوية الدخول بعنوان بريد مختلف عن عنوان هذا الحساب ({~email}): اربطه بهوية هذا العنوان.',
  },
  sso_identity_taken: {
    status: 403,
    en: 'This single sign-on identity is already linked to another account.',
    ar: 'هوية الدخول الموحّد هذه مرتبطة مسبقًا بحساب آخر.',
  },
  // Partner programs (operations.md §18).
  slug_taken: {
    status: 409,
    en: 'The program address "{slug}" is taken on this server: choose another slug.',
    ar: 'عنوان البرنامج "{~slug}" مستخدم على هذا الخادم: اختر معرّفًا آخر.',
  },
  program_required: {
    status: 409,
    en: 'This workspace has no partner program yet: create it with PUT /api/program first.',
    ar: 'ليس لمساحة العمل هذه برنامج شركاء بعد: أنشئه أولًا عبر PUT /api/program.',
  },
  self_dealing: {
    status: 403,
    en: 'You cannot give a custom commission to the partner you sign in as.',
    ar: 'لا يمكنك منح عمولة مخصّصة للشريك الذي تسجّل الدخول بصفته.',
  },
  signup_closed: {
    status: 403,
    en: 'This account signs in as a partner only: creating a workspace needs an invitation to one, or a server with open sign-up.',
    ar: 'هذا الحساب يسجّل الدخول بصفة شريك فقط: يتطلب إنشاء مساحة عمل دعوةً إلى مساحة، أو خادمًا يتيح التسجيل المفتوح.',
  },
  program_choice_required: {
    status: 400,
    en: 'You are a partner in several programs: name one in the X-Program-Id header (GET /api/me lists them under partnerPrograms).',
    ar: 'أنت شريك في عدة برامج: سمِّ أحدها في الترويسة X-Program-Id (يسردها GET /api/me ضمن partnerPrograms).',
  },
  partner_not_approved: {
    status: 403,
    en: 'Only an approved partner can make links: this partnership is not approved now.',
    ar: 'لا يُنشئ الروابطَ إلا شريكٌ معتمد: هذه الشراكة غير معتمدة حاليًا.',
  },
  partner_link_limit: {
    status: 409,
    en: 'You have made as many links as the program allows ({limit}).',
    ar: 'أنشأت أقصى عدد من الروابط يسمح به البرنامج ({limit}).',
  },
  payout_in_progress: {
    status: 409,
    en: 'A payout to you is being made: your payout details can change once it is completed or cancelled.',
    ar: 'هناك دفعة قيد الإعداد لك: يمكن تغيير بيانات الدفع بعد إتمامها أو إلغائها.',
  },
  reauthentication_required: {
    status: 403,
    en: 'Confirm it is you: send your password, or sign in again with a passkey or single sign-on (valid for 5 minutes).',
    ar: 'أكّد هويتك: أرسل كلمة المرور، أو سجّل الدخول مجددًا بمفتاح مرور أو بالدخول الموحّد (صالح 5 دقائق).',
  },
  partner_claimed: {
    status: 409,
    en: 'Someone already signs in as this partner: the owner must unlink them before another invitation can be accepted.',
    ar: 'هناك من يسجّل الدخول بصفة هذا الشريك بالفعل: على المالك فكّ الربط قبل قبول دعوة أخرى.',
  },
  payout_pending: {
    status: 409,
    en: 'A payout in {currency} is already pending: complete or cancel it before creating another.',
    ar: 'هناك دفعة بعملة {~currency} قيد الانتظار: أكملها أو ألغها قبل إنشاء دفعة أخرى.',
  },
  payout_not_pending: {
    status: 409,
    en: 'This payout is no longer pending (it is {status}): nothing was changed.',
    ar: 'لم تعد هذه الدفعة قيد الانتظار (حالتها {status}): لم يتغيّر شيء.',
  },
  default_group: {
    status: 400,
    en: 'The group named "default" cannot be deleted or renamed: every program keeps it.',
    ar: 'لا يمكن حذف المجموعة المسمّاة "default" أو إعادة تسميتها: كل برنامج يحتفظ بها.',
  },
  default_link: {
    status: 400,
    en: "Item {field} is an approved partner's default link: it cannot be deleted while the partner is approved (ban or archive the partner first). Nothing was deleted.",
    ar: 'العنصر {field} هو الرابط الافتراضي لشريك مقبول: لا يمكن حذفه ما دام الشريك مقبولًا (احظر الشريك أو أرشفه أولًا). لم يُحذف شيء.',
  },
  applications_full: {
    status: 429,
    en: 'This partner program is not taking more applications for now: try again later.',
    ar: 'لا يقبل برنامج الشركاء هذا طلبات أخرى في الوقت الحالي: حاول مرة أخرى لاحقًا.',
  },
  apply_throttled: {
    status: 429,
    en: 'Too many applications from this address. Retry in {retryAfter} seconds.',
    ar: 'طلبات كثيرة من هذا العنوان. أعد المحاولة بعد {retryAfter} ثانية.',
  },
  group_name_taken: {
    status: 409,
    en: 'A partner group named "{name}" already exists in this program.',
    ar: 'توجد في هذا البرنامج مجموعة شركاء باسم "{~name}".',
  },
  embed_token_invalid: {
    status: 401,
    en: 'This referral page has expired or its link is not valid: open it again from the app that showed it.',
    ar: 'انتهت صلاحية صفحة الإحالات هذه أو أن رابطها غير صالح: افتحها مجددًا من التطبيق الذي عرضها.',
  },
  embed_rate_limited: {
    status: 429,
    en: 'Too many requests for this referral page: retry in {retryAfter} seconds.',
    ar: 'طلبات كثيرة جدًا لصفحة الإحالات هذه: أعد المحاولة بعد {retryAfter} ثانية.',
  },
  embed_invite_recent: {
    status: 429,
    en: 'An invitation to set up payouts was mailed a few minutes ago: look in your inbox (and spam folder), or ask again in {minutes} minutes.',
    ar: 'أُرسلت قبل دقائق دعوة لإعداد الدفعات إلى بريدك: ابحث عنها في صندوق الوارد (ومجلد الرسائل غير المرغوب فيها)، أو اطلبها مجددًا بعد {minutes} دقيقة.',
  },
  embed_mail_unavailable: {
    status: 409,
    en: 'This server does not send mail, so no invitation can be mailed: ask the program for an invitation to the partner portal.',
    ar: 'هذا الخادم لا يرسل البريد، فلا يمكن إرسال دعوة: اطلب من البرنامج دعوة إلى بوابة الشركاء.',
  },
  embed_email_required: {
    status: 409,
    en: 'The program has no e-mail address for you, so no invitation can be mailed: ask the program to add your e-mail address.',
    ar: 'ليس لدى البرنامج عنوان بريد إلكتروني لك، فلا يمكن إرسال دعوة: اطلب من البرنامج إضافة عنوان بريدك.',
  },
  origin_not_allowed: {
    status: 403,
    en: 'This page may not use the publishable key: its origin is not one of the hostnames allowed in the workspace’s tracking settings.',
    ar: 'لا يجوز لهذه الصفحة استخدام المفتاح القابل للنشر: مصدرها ليس من أسماء المضيفين المسموح بها في إعدادات التتبّع لمساحة العمل.',
  },
  publishable_key_elsewhere: {
    status: 401,
    en: 'A publishable key (lt_pk_…) is accepted only by POST /api/track/click, /api/track/lead/client and /api/track/sale/client; send an API key or token here.',
    ar: 'لا يُقبل المفتاح القابل للنشر (lt_pk_…) إلا في POST /api/track/click و‎/api/track/lead/client و‎/api/track/sale/client؛ أرسل هنا مفتاح API أو رمزًا.',
  },
  unknown_via: {
    status: 400,
    en: 'No approved partner of this workspace has this referral key, and no link of this workspace has this short id.',
    ar: 'لا يوجد شريك معتمد في مساحة العمل هذه بمفتاح الإحالة هذا، ولا رابط في مساحة العمل هذه بهذا المعرّف القصير.',
  },
  client_sales_off: {
    status: 403,
    en: 'This workspace does not take sales reported from browsers (clientSales is off in its tracking settings): report them from your server.',
    ar: 'لا تقبل مساحة العمل هذه المبيعات المُبلّغ عنها من المتصفحات (الخيار clientSales معطّل في إعدادات التتبّع): أبلغ عنها من خادمك.',
  },
  visitor_rate_limited: {
    status: 429,
    en: 'Too many tracking requests from this visitor. Retry in {retryAfter} seconds.',
    ar: 'طلبات تتبّع كثيرة جدًا من هذا الزائر. أعد المحاولة بعد {retryAfter} ثانية.',
  },
  link_test_none: {
    status: 404,
    en: 'Link {id} has never had an A/B test.',
    ar: 'لم يُجرَ للرابط {id} أي اختبار A/B.',
  },
  link_test_not_running: {
    status: 409,
    en: 'Link {id} has no A/B test running: its last test is already completed.',
    ar: 'لا يجري للرابط {id} أي اختبار A/B حاليًا: اكتمل آخر اختبار له.',
  },
} as const satisfies Record<string, Text & { status?: number }>;

export type MessageCode = keyof typeof messages;

/**
 * The codes an error answers with: every message but the report's lines. Each one's entry has
 * its status (statusOf, in http/errors.ts, does not compile for one without).
 */
export type ErrorCode = Exclude<MessageCode, 'import_left_out'>;

/** Reasons a field can be invalid; `{x}` placeholders come from the same params. */
export const reasons = {
  required: { en: 'is required', ar: 'حقل مطلوب' },
  already_claimed: { en: 'is already claimed by this workspace ({host})', ar: 'طالبت به مساحة العمل هذه مسبقًا ({host})' },
  alias_invalid: {
    en: 'must be an absolute http(s) URL with a host and a path, without query or fragment (an old short URL such as https://brand.example/spring)',
    ar: 'يجب أن يكون رابط http(s) مطلقًا بمضيف ومسار، دون استعلام أو جزء (رابط مختصر قديم مثل https://brand.example/spring)',
  },
  alias_host_not_claimed: {
    en: 'is on {host}, a host this workspace has not claimed (POST /api/domains)',
    ar: 'على المضيف {host}، وهو مضيف لم تطالب به مساحة العمل هذه (POST /api/domains)',
  },
  key_invalid: {
    en: 'must be 1 to {limit} characters of a-z, A-Z, 0-9, -, _, . and /, without a leading, trailing or doubled / and without a . or .. segment',
    ar: 'يجب أن يتكون من 1 إلى {limit} حرفًا من a-z وA-Z و0-9 و- و_ و. و/، دون / في أوله أو آخره أو مكرّرة، ودون مقطع . أو ..',
  },
  alias_taken: { en: 'is already an alias of another link', ar: 'اسم بديل لرابط آخر بالفعل' },
  type: { en: 'must be of type {type}', ar: 'يجب أن يكون من النوع {type}' },
  not_null: { en: 'must not be null', ar: 'لا يجوز أن يكون null' },
  format: { en: 'must be a valid {format}', ar: 'يجب أن يكون {format} صالحًا' },
  min_length: { en: 'must be at least {limit} characters', ar: 'يجب ألا يقل عن {limit} حرفًا' },
  max_length: { en: 'must be at most {limit} characters', ar: 'يجب ألا يزيد على {limit} حرفًا' },
  minimum: { en: 'must be at least {limit}', ar: 'يجب ألا يقل عن {limit}' },
  maximum: { en: 'must be at most {limit}', ar: 'يجب ألا يزيد على {limit}' },
  min_items: { en: 'must contain at least {limit} item(s)', ar: 'يجب أن يحتوي على {limit} عنصر على الأقل' },
  max_items: { en: 'must contain at most {limit} items', ar: 'يجب ألا يحتوي على أكثر من {limit} عنصر' },
  enum: { en: 'must be one of {values}', ar: 'يجب أن يكون إحدى القيم: {values}' },
  pattern: { en: 'has an invalid format', ar: 'صيغته غير صالحة' },
  https_required: { en: 'must be an https URL', ar: 'يجب أن يكون رابط https' },
  url_characters: {
    en: 'must not contain control characters (line breaks, tabs…) or invalid characters, nor begin or end with whitespace',
    ar: 'يجب ألا يحتوي على محارف تحكم (فواصل أسطر أو جدولة…) أو محارف غير صالحة، وألا يبدأ أو ينتهي بمسافة',
  },
  duplicate_in_request: {
    en: 'duplicates item [{other}] of this request',
    ar: 'مكرر مع العنصر [{other}] في هذا الطلب',
  },
  utm_empty: {
    en: 'needs at least one value (source, medium, campaign, term, content or referral)',
    ar: 'يحتاج إلى قيمة واحدة على الأقل (المصدر أو الوسيط أو الحملة أو الكلمة أو المحتوى أو الإحالة)',
  },
  already_exists: { en: 'already exists in this workspace', ar: 'موجود مسبقًا في مساحة العمل هذه' },
  not_found: { en: 'no such record in this workspace', ar: 'لا يوجد سجل بهذا المعرّف في مساحة العمل هذه' },
  nothing_to_update: {
    en: 'an update needs at least one field besides id',
    ar: 'يحتاج التحديث إلى حقل واحد على الأقل غير id',
  },
  invalid: { en: 'is not valid', ar: 'قيمة غير صالحة' },
  start_after_end: { en: 'must not be later than endDate', ar: 'يجب ألا يكون بعد endDate' },
  interval_needs_timeseries: { en: 'applies only with groupBy=timeseries', ar: 'لا يُستخدم إلا مع groupBy=timeseries' },
  compare_needs_group_by: { en: 'applies only with groupBy (totals per group)', ar: 'لا يُستخدم إلا مع groupBy (مجاميع لكل مجموعة)' },
  variant_needs_link: {
    en: "variant applies only with linkId (the variants of one link's A/B tests)",
    ar: 'لا تُستخدم القيمة variant إلا مع linkId (متغيرات اختبارات A/B لرابط واحد)',
  },
  compare_needs_start: { en: 'is required with compare: the earlier period is measured from it', ar: 'مطلوب مع compare: فمنه تُحسب الفترة السابقة' },
  revenue_needs_currency: {
    en: 'is required with orderBy=revenue: amounts in different currencies are never added together',
    ar: 'مطلوب مع orderBy=revenue: فلا تُجمع مبالغ العملات المختلفة معًا أبدًا',
  },
  needs_with_stats: { en: 'applies only with withStats=true', ar: 'لا يُستخدم إلا مع withStats=true' },
  time_zone: {
    en: 'must be an IANA time zone name such as Europe/Paris or Asia/Kolkata',
    ar: 'يجب أن يكون اسم منطقة زمنية من IANA مثل Europe/Paris أو Asia/Kolkata',
  },
  unknown_click: {
    en: 'is not a click of a link in this workspace',
    ar: 'ليس نقرة على رابط في مساحة العمل هذه',
  },
  no_previous_lead: {
    en: 'the customer has no earlier lead to attribute this event to',
    ar: 'لا يوجد لهذا العميل عميل محتمل سابق يمكن نسب هذا الحدث إليه',
  },
  no_such_lead: {
    en: 'the customer has no lead event named "{value}"',
    ar: 'لا يوجد لهذا العميل حدث عميل محتمل باسم "{value}"',
  },
  currency_code: {
    en: 'must be a lowercase ISO 4217 currency code ("{value}" is not one)',
    ar: 'يجب أن يكون رمز عملة ISO 4217 بأحرف صغيرة ("{value}" ليس منها)',
  },
  payout_file_part: { en: 'must be a part of the file, 1 to {parts}', ar: 'يجب أن يكون جزءًا من الملف، من 1 إلى {parts}' },
  sale_or_invoice: { en: 'give exactly one of saleId and invoiceId', ar: 'أدخل واحدًا فقط من saleId وinvoiceId' },
  refund_above_amount: { en: 'cannot be more than the sale amount ({amount})', ar: 'لا يمكن أن يتجاوز مبلغ البيع ({amount})' },
  refund_below_recorded: {
    en: 'is the refunded total so far and cannot go below the {recorded} already recorded',
    ar: 'هو إجمالي المبلغ المسترد حتى الآن ولا يمكن أن يقل عن {recorded} المسجّل مسبقًا',
  },
  host_not_active: {
    en: 'must be a host this workspace holds active ("{value}" is not one)',
    ar: 'يجب أن يكون مضيفًا نشطًا تملكه مساحة العمل هذه ("{~value}" ليس منها)',
  },
  status_move: {
    en: 'cannot move from {from} to {to}',
    ar: 'لا يمكن الانتقال من {from} إلى {to}',
  },
  status_on_create: {
    en: 'a new partner starts as invited, pending or approved, not {value}',
    ar: 'يبدأ الشريك الجديد مدعوًّا أو قيد المراجعة أو مقبولًا، لا {~value}',
  },
  taken_in_workspace: {
    en: '"{value}" is already used in this workspace',
    ar: '"{~value}" مستخدم مسبقًا في مساحة العمل هذه',
  },
  nesting_too_deep: {
    en: 'is nested too deeply (at most 64 levels)',
    ar: 'متداخل بعمق زائد (64 مستوى على الأكثر)',
  },
  too_big: { en: 'is too large (at most {limit} bytes as JSON)', ar: 'كبير جدًا (لا يتجاوز {limit} بايت بصيغة JSON)' },
  common_password: {
    en: 'is one of the most common passwords; choose another',
    ar: 'من أكثر كلمات المرور شيوعًا؛ اختر كلمة مرور أخرى',
  },
  too_many_values: {
    en: 'holds too many values (at most {limit})',
    ar: 'يحتوي على عدد كبير جدًا من القيم ({limit} على الأكثر)',
  },
  string_too_long: {
    en: 'holds a string that is too long (at most {limit} characters)',
    ar: 'يحتوي على نص طويل جدًا ({limit} حرف على الأكثر)',
  },
  too_many_keys: {
    en: 'holds an object with too many keys (at most {limit})',
    ar: 'يحتوي على كائن بعدد كبير جدًا من المفاتيح ({limit} على الأكثر)',
  },
  invalid_characters: {
    en: 'contains characters that cannot be stored (U+0000 or an unpaired surrogate)',
    ar: 'يحتوي على محارف لا يمكن تخزينها (U+0000 أو بديل غير مقترن)',
  },
  setup_code: {
    en: 'is not a valid setup code (setup is done once, while no user exists)',
    ar: 'ليس رمز إعداد صالحًا (يتم الإعداد مرة واحدة فقط، ما دام لا يوجد أي مستخدم)',
  },
  wrong_password: { en: 'is not your current password', ar: 'ليست كلمة مرورك الحالية' },
  email_taken: { en: 'already belongs to an account', ar: 'مستخدم مسبقًا في حساب آخر' },
  already_member: { en: 'is already a member of this workspace', ar: 'عضو في مساحة العمل هذه مسبقًا' },
  last_owner: {
    en: 'would leave the workspace without an owner',
    ar: 'سيترك مساحة العمل دون مالك',
  },
  totp_already_enabled: { en: 'two-factor sign-in is already on for this account', ar: 'تسجيل الدخول بخطوتين مفعّل لهذا الحساب مسبقًا' },
  totp_not_started: { en: 'ask for a new secret first (POST /api/me/mfa/totp)', ar: 'اطلب سرًّا جديدًا أولًا (POST /api/me/mfa/totp)' },
  totp_not_enabled: { en: 'two-factor sign-in is not on for this account', ar: 'تسجيل الدخول بخطوتين غير مفعّل لهذا الحساب' },
  mfa_enrol_first: {
    en: 'can be turned on only once your own account has two-factor sign-in',
    ar: 'لا يمكن تفعيله إلا بعد تفعيل تسجيل الدخول بخطوتين في حسابك أنت',
  },
  mfa_code_wrong: {
    en: 'is not a current code of your authenticator app, nor an unused recovery code',
    ar: 'ليس رمزًا حاليًا من تطبيق المصادقة ولا رمز استرداد غير مستخدم',
  },
  passkey_response: { en: 'is not a WebAuthn response this server can read', ar: 'ليس استجابة WebAuthn يمكن لهذا الخادم قراءتها' },
  passkey_challenge: {
    en: 'answers no current challenge (expired, already used, or asked for something else): ask for new options',
    ar: 'لا يجيب عن أي تحدٍّ قائم (انتهت صلاحيته أو استُخدم أو طُلب لغرض آخر): اطلب خيارات جديدة',
  },
  passkey_not_verified: {
    en: 'could not be verified (wrong site, challenge or signature)',
    ar: 'تعذّر التحقق منه (موقع أو تحدٍّ أو توقيع غير صحيح)',
  },
  passkey_exists: { en: 'is a passkey already registered', ar: 'مفتاح مرور مسجّل مسبقًا' },
  passkey_none: { en: 'this account has no passkey: use another second factor', ar: 'لا يملك هذا الحساب مفتاح مرور: استخدم عاملًا ثانيًا آخر' },
  reset_token_invalid: {
    en: 'is not a valid reset link (unknown, already used or older than one hour)',
    ar: 'ليس رابط إعادة تعيين صالحًا (غير معروف أو مستخدم أو أقدم من ساعة)',
  },
  invite_invalid: {
    en: 'is not a valid invitation (unknown, already used, revoked or expired)',
    ar: 'ليست دعوة صالحة (غير معروفة أو مستخدمة أو ملغاة أو منتهية الصلاحية)',
  },
  outside_link_prefixes: {
    en: "is not under one of the program's link prefixes ({prefixes})",
    ar: 'ليس ضمن بادئات الروابط التي يسمح بها البرنامج ({prefixes})',
  },
  terms_not_accepted: {
    en: "must be true: the program's terms must be accepted to apply",
    ar: 'يجب أن تكون true: لا يمكن التقدّم دون قبول شروط البرنامج',
  },
  website_invalid: {
    en: 'must be a web address (http or https), such as https://example.com',
    ar: 'يجب أن يكون عنوان ويب (http أو https)، مثل https://example.com',
  },
  partner_email_required: {
    en: 'is a partner without an email address: set their email before inviting them',
    ar: 'شريك بلا بريد إلكتروني: عيّن بريده قبل دعوته',
  },
  partner_not_invitable: {
    en: 'is a partner who is rejected, banned or archived: only a partner who may join can be invited',
    ar: 'شريك مرفوض أو محظور أو مؤرشف: لا تُرسل الدعوة إلا لشريك يمكنه الانضمام',
  },
  invite_other_email: {
    en: "was sent to another email address than this account's",
    ar: 'أُرسلت إلى بريد إلكتروني غير بريد هذا الحساب',
  },
  sign_in_to_accept: {
    en: 'belongs to an existing account: sign in and accept it with your session',
    ar: 'يخص حسابًا موجودًا: سجّل الدخول واقبل الدعوة من خلال جلستك',
  },
  scope_not_in_role: {
    en: 'is not a scope your role ({role}) has in this workspace',
    ar: 'ليست صلاحية يملكها دورك ({role}) في مساحة العمل هذه',
  },
  not_member: { en: 'is not a workspace you are a member of', ar: 'ليست مساحة عمل أنت عضو فيها' },
  too_far: { en: 'must be at most {limit} from now', ar: 'يجب ألا يتجاوز {limitAr} من الآن' },
  in_past: { en: 'must be in the future', ar: 'يجب أن يكون في المستقبل' },
  plan_feature: {
    en: 'needs a plan with {feature} (this workspace is on the {plan} plan)',
    ar: 'يتطلب خطة تتضمن {featureAr} (مساحة العمل هذه على خطة {plan})',
  },
  country_code: {
    en: 'keys must be uppercase ISO 3166-1 alpha-2 country codes ("{value}" is not one)',
    ar: 'يجب أن تكون المفاتيح رموز دول ISO 3166-1 alpha-2 بأحرف كبيرة ("{value}" ليس منها)',
  },
  frame_blocked: {
    en: 'the destination forbids being shown in a frame (X-Frame-Options or CSP frame-ancestors), so it cannot be cloaked',
    ar: 'الوجهة تمنع عرضها داخل إطار (X-Frame-Options أو CSP frame-ancestors)، لذا لا يمكن إخفاؤها',
  },
  unreachable: {
    en: 'the destination could not be reached to check that it can be framed',
    ar: 'تعذّر الوصول إلى الوجهة للتحقق من إمكانية عرضها داخل إطار',
  },
  private_address: {
    en: 'the destination resolves to a private or loopback address',
    ar: 'الوجهة تشير إلى عنوان خاص أو عنوان استرجاع محلي',
  },
  redirect_uri: {
    en: 'must be an absolute https URL (http only on localhost, 127.0.0.1 or [::1]) without user info or fragment',
    ar: 'يجب أن يكون رابط https مطلقًا (أو http على localhost أو 127.0.0.1 أو [::1] فقط) دون بيانات مستخدم ودون معرّف جزئي (#)',
  },
  webhook_url: {
    en: 'must be an absolute https URL (http only inside WEBHOOK_ALLOWED_CIDRS) without user info or fragment',
    ar: 'يجب أن يكون رابط https مطلقًا (http فقط داخل نطاقات WEBHOOK_ALLOWED_CIDRS) دون بيانات مستخدم ودون معرّف جزئي (#)',
  },
  unresolvable: { en: 'names a host that does not resolve to any address', ar: 'يشير إلى مضيف لا يُترجَم إلى أي عنوان' },
  grant_ended: {
    en: 'cannot be false: the OAuth app that registered this endpoint lost its authorization',
    ar: 'لا يمكن أن تكون false: التطبيق (OAuth) الذي سجّل نقطة الاستقبال هذه فقد تفويضه',
  },
  not_in_future: { en: 'must not be in the future', ar: 'يجب ألا يكون في المستقبل' },
  within_days: { en: 'must be within the last {limit} days', ar: 'يجب أن يكون خلال آخر {limit} يومًا' },
  not_subscribable: {
    en: 'is {value}, which is sent on request only (by the test action of an endpoint) and cannot be subscribed to',
    ar: 'هو {value}، ويُرسل عند الطلب فقط (بإجراء الاختبار لنقطة الاستقبال) ولا يمكن الاشتراك فيه',
  },
  public_app: { en: 'is false: a public app has no client secret', ar: 'قيمته false: التطبيق العام لا يملك سرّ عميل' },
  oauth_unknown_client: { en: 'is not the client_id of an app registered here', ar: 'ليس معرّف عميل (client_id) لتطبيق مسجّل هنا' },
  oauth_unregistered_redirect: {
    en: 'is not one of the redirect URIs the app registered (they are compared character for character)',
    ar: 'ليس من عناوين إعادة التوجيه التي سجّلها التطبيق (تُقارَن حرفًا بحرف)',
  },
  pkce_challenge: {
    en: 'must be the base64url SHA-256 of the code verifier (43 characters)',
    ar: 'يجب أن يكون بصمة SHA-256 لمُتحقِّق الرمز بترميز base64url (43 حرفًا)',
  },
  unknown_scope: { en: 'names {scope}, which is not a scope', ar: 'يذكر {scope}، وهي ليست صلاحية معروفة' },
  scope_beyond_app: { en: 'asks for {scope}, which this app may not ask for', ar: 'يطلب {scope}، وهي صلاحية لا يحق لهذا التطبيق طلبها' },
  http_not_upgraded: {
    en: 'is an http URL: import with upgradeHttp=true to make it https, or correct it in the file',
    ar: 'رابط http: استورد مع upgradeHttp=true لتحويله إلى https، أو صحّحه في الملف',
  },
  cell_too_big: { en: 'holds more than {limit} bytes', ar: 'يحتوي على أكثر من {limit} بايت' },
  row_too_big: { en: 'the row holds more than {limit} bytes', ar: 'يحتوي الصف على أكثر من {limit} بايت' },
  short_url: {
    en: 'is not an old short URL: it must be a URL with a host and a path, such as https://sho.rt/spring',
    ar: 'ليس رابطًا مختصرًا قديمًا: يجب أن يكون رابطًا بمضيف ومسار، مثل https://sho.rt/spring',
  },
  duplicate_in_file: {
    en: 'repeats the old short URL of line {other} of this file',
    ar: 'يكرر الرابط المختصر القديم الوارد في السطر {other} من هذا الملف',
  },
  import_date: {
    en: 'is not a date this import reads (ISO 8601 such as 2024-05-01T10:20:30Z, 2024-05-01 10:20:30, 5/1/2024, or Unix seconds)',
    ar: 'ليس تاريخًا يقرؤه الاستيراد (ISO 8601 مثل 2024-05-01T10:20:30Z، أو 2024-05-01 10:20:30، أو 5/1/2024، أو ثوانٍ بتوقيت يونكس)',
  },
  duplicate_row_in_file: {
    en: 'is the same link as line {other} of this file (same old short URL, external id, or destination and title)',
    ar: 'هو الرابط نفسه الوارد في السطر {other} من هذا الملف (الرابط المختصر القديم نفسه، أو المعرّف الخارجي نفسه، أو الوجهة والعنوان نفسيهما)',
  },
  alias_host_taken: {
    en: 'is on {host}, a host another workspace holds: its old short URLs belong to that workspace',
    ar: 'على المضيف {~host}، وهو مضيف تملكه مساحة عمل أخرى: روابطه المختصرة القديمة تعود إليها',
  },
  alias_host_public: {
    en: 'is on {host}, a public shortener: its links keep working at the old service, not here (no alias, the host is not claimed)',
    ar: 'على المضيف {~host}، وهو خدمة اختصار عامة: تبقى روابطه عاملة لدى الخدمة القديمة لا هنا (لا اسم بديل، ولا مطالبة بالمضيف)',
  },
  import_date_range: {
    en: "is {date}, before 2000 or in the future: the link is created with the import's time instead",
    ar: 'هو {~date}، قبل عام 2000 أو في المستقبل: يُنشأ الرابط بوقت الاستيراد بدلًا منه',
  },
  alias_host_unclaimable: {
    en: 'is on {host}, which cannot be claimed ({why})',
    ar: 'على المضيف {~host}، ولا يمكن المطالبة به ({whyAr})',
  },
  collection_unknown: {
    en: 'names the collection id {id}, which is not a collection of this workspace',
    ar: 'يذكر معرّف المجموعة {id}، وهو ليس مجموعة في مساحة العمل هذه',
  },
  not_json_object: {
    en: 'is not a JSON object ({detail})',
    ar: 'ليس كائن JSON ({detailAr})',
  },
  unknown_record_type: {
    en: 'is "{value}", which is not a record type of a Linktrail export ({types})',
    ar: 'قيمته "{value}"، وهو ليس نوع سجل في ملف تصدير Linktrail ({types})',
  },
  reference_missing: {
    en: 'names the {kind} {id}, which is neither in this workspace nor imported from an earlier line of this file',
    ar: 'يذكر {kindAr} {id}، وهو غير موجود في مساحة العمل هذه ولم يُستورد من سطر سابق في هذا الملف',
  },
  affiliate_identity: {
    en: 'gives neither an e-mail nor a referral key: nothing to find or create the partner by',
    ar: 'لا يذكر بريدًا إلكترونيًا ولا مفتاح إحالة: لا شيء يُعثر به على الشريك أو يُنشأ',
  },
  partner_unknown: {
    en: 'names the partner {value}, who is neither in this workspace nor imported before (import the partners export first)',
    ar: 'يذكر الشريك {~value}، وهو غير موجود في مساحة العمل هذه ولم يُستورد من قبل (استورد تصدير الشركاء أولًا)',
  },
  partner_without_link: {
    en: 'names a partner who is {status}, with no default link in the program: only an approved partner wins customers',
    ar: 'يذكر شريكًا حالته {status}، بلا رابط افتراضي في البرنامج: لا يكسب العملاء إلا الشريك المعتمد',
  },
  customer_won_by_other: {
    en: 'is a customer another partner ({partnerId}) has already won here: left with that partner',
    ar: 'عميل كسبه شريك آخر ({partnerId}) هنا بالفعل: يبقى لذلك الشريك',
  },
  referral_date_range: {
    en: "is {date}, before 2000 or in the future: the referral is dated with the import's time instead",
    ar: 'هو {~date}، قبل عام 2000 أو في المستقبل: تُؤرَّخ الإحالة بوقت الاستيراد بدلًا منه',
  },
  deleted_here: {
    en: 'is a record this workspace imported before and has deleted since: it is not brought back',
    ar: 'سجل استوردته مساحة العمل هذه من قبل ثم حذفته: لن يُعاد',
  },
  id_taken: {
    en: 'cannot be kept or mapped: both it and its mapped id are taken on this server',
    ar: 'لا يمكن الإبقاء عليه ولا تحويله: هو ومعرّفه البديل مستخدمان كلاهما على هذا الخادم',
  },
  duplicate_record_in_file: {
    en: 'repeats the {kind} of line {other} of this file',
    ar: 'يكرر {kindAr} الوارد في السطر {other} من هذا الملف',
  },
  amount_below_refund: {
    en: 'is more than the amount',
    ar: 'أكبر من المبلغ',
  },
  unclosed_quote: {
    en: 'opens a quoted cell (") that is never closed, so the rest of the file cannot be read',
    ar: 'يفتح خلية بين علامتي اقتباس (") لا تُغلق أبدًا، فلا يمكن قراءة بقية الملف',
  },
  qr_contrast: {
    en: 'gives a contrast of {ratio} with the other colour; a scanner needs at least {min} (dark modules on a light background)',
    ar: 'يعطي تباينًا قدره {~ratio} مع اللون الآخر؛ يحتاج الماسح الضوئي إلى {~min} على الأقل (وحدات داكنة على خلفية فاتحة)',
  },
  qr_inverted: {
    en: 'must be darker than the background: many scanners cannot read light modules on a dark background',
    ar: 'يجب أن يكون أغمق من الخلفية: كثير من الماسحات الضوئية لا تقرأ وحدات فاتحة على خلفية داكنة',
  },
  qr_logo_needs_h: {
    en: 'must be H when the code carries a logo: the logo hides part of the code, and only H (30 % recoverable) reads past it',
    ar: 'يجب أن يكون H عندما يحمل الرمز شعارًا: يخفي الشعار جزءًا من الرمز، ولا يتجاوزه إلا المستوى H (يمكن استعادة 30٪ منه)',
  },
  qr_logo_unknown: { en: 'names no logo (it may have been deleted)', ar: 'لا يشير إلى أي شعار (ربما حُذف)' },
  sso_issuer_url: {
    en: 'must be the issuer’s URL (https, or http inside SSO_ALLOWED_CIDRS), without user info, query or fragment',
    ar: 'يجب أن يكون رابط المُصدِر (https، أو http داخل SSO_ALLOWED_CIDRS) دون بيانات مستخدم أو استعلام أو معرّف جزئي',
  },
  sso_domain: { en: 'is not an e-mail domain such as example.com', ar: 'ليس نطاق بريد إلكتروني مثل example.com' },
  sso_domain_repeated: { en: 'names a domain twice', ar: 'يذكر النطاق نفسه مرتين' },
  sso_secret_required: {
    en: 'is required when the connection is made (later, leave it out to keep the current one)',
    ar: 'مطلوب عند إنشاء الاتصال (لاحقًا، اتركه فارغًا للإبقاء على الحالي)',
  },
  reward_percentage_sales: {
    en: 'can be percentage only for a sale reward: clicks and leads have no amount to take a share of',
    ar: 'لا يكون percentage إلا لمكافأة على عملية بيع: فالنقرات والعملاء المحتملون ليس لهم مبلغ تُؤخذ منه نسبة',
  },
  reward_basis_points: {
    en: 'must be 1 to 10000 basis points for a percentage reward (100 is 1 %, 10000 is 100 %)',
    ar: 'يجب أن يكون من 1 إلى 10000 نقطة أساس لمكافأة النسبة المئوية (100 تعني 1٪ و10000 تعني 100٪)',
  },
  reward_flat_amount: {
    en: "must be 0 to 1000000000000 in the program currency's minor unit for a flat reward",
    ar: 'يجب أن يكون من 0 إلى 1000000000000 بالوحدة الصغرى لعملة البرنامج لمكافأة المبلغ الثابت',
  },
  reward_sale_only: { en: 'applies only to a sale reward', ar: 'لا ينطبق إلا على مكافأة عملية بيع' },
  reward_click_only: { en: 'applies only to a click reward', ar: 'لا ينطبق إلا على مكافأة النقرات' },
  condition_field: {
    en: 'must be eventName, amount, currency, country or metadata.<key> with a key of 1 to 100 characters',
    ar: 'يجب أن يكون eventName أو amount أو currency أو country أو metadata.<key> بمفتاح من 1 إلى 100 حرف',
  },
  condition_in_list: {
    en: 'must be a list of 1 to {limit} strings for the op in',
    ar: 'يجب أن يكون قائمة من 1 إلى {limit} نصًا مع العامل in',
  },
  condition_number: { en: 'must be a number for the op {op}', ar: 'يجب أن يكون رقمًا مع العامل {op}' },
  condition_scalar: { en: 'must be a string or a number for the op {op}', ar: 'يجب أن يكون نصًا أو رقمًا مع العامل {op}' },
  condition_compares_numbers: {
    en: 'is {op}, which compares numbers, and {name} is never a number: use eq, neq or in',
    ar: 'قيمته {op}، وهو عامل يقارن الأرقام، و{name} ليس رقمًا أبدًا: استخدم eq أو neq أو in',
  },
  condition_country: {
    en: 'must be an uppercase ISO 3166-1 alpha-2 country code ("{value}" is not one)',
    ar: 'يجب أن يكون رمز دولة ISO 3166-1 alpha-2 بأحرف كبيرة ("{value}" ليس منها)',
  },
  embed_partner_or_tenant: {
    en: 'must be given alone: send either partnerId, or tenantId with name',
    ar: 'يجب أن يُرسل وحده: أرسل إما partnerId وإما tenantId مع name',
  },
  partner_not_embeddable: {
    en: 'is a partner who is not approved ({status}): only an approved partner has a referral page',
    ar: 'شريك غير معتمد ({status}): لا تكون صفحة الإحالات إلا لشريك معتمد',
  },
  tenant_of_deleted_partner: {
    en: 'belongs to a deleted partner: a deleted partner keeps their tenant id',
    ar: 'يخص شريكًا محذوفًا: يحتفظ الشريك المحذوف بمعرّف المستأجر الخاص به',
  },
  hostname_pattern: {
    en: 'must be a hostname such as site.example, or *.site.example for its subdomains ("{value}" is not one)',
    ar: 'يجب أن يكون اسم مضيف مثل site.example، أو ‎*.site.example لنطاقاته الفرعية ("{~value}" ليس كذلك)',
  },
  deferred_from_browser: {
    en: 'must be a click id: a browser cannot report a deferred event (send it from your server)',
    ar: 'يجب أن يكون معرّف نقرة: لا يمكن للمتصفح الإبلاغ عن حدث مؤجَّل (أرسله من خادمك)',
  },
  lead_name_from_browser: {
    en: 'is not accepted from a browser: send the click id, or report the sale from your server',
    ar: 'غير مقبول من المتصفح: أرسل معرّف النقرة، أو أبلغ عن البيع من خادمك',
  },
  click_too_old: {
    en: 'is a click of more than {days} days ago, past the attribution window',
    ar: 'نقرة مضى عليها أكثر من {days} يومًا، خارج نافذة الإسناد',
  },
  weights_sum: {
    en: 'must have weights adding up to 100 (these add up to {sum})',
    ar: 'يجب أن يكون مجموع الأوزان 100 (مجموع هذه الأوزان {sum})',
  },
  variant_index: {
    en: "must be the index of one of the test's variants, 0 to {limit}",
    ar: 'يجب أن يكون رقم أحد متغيرات الاختبار، من 0 إلى {limit}',
  },
} as const satisfies Record<string, Text>;

export type ReasonCode = keyof typeof reasons;

export type Params = Record<string, string | number>;

/**
 * `{x}` is the parameter; `{~x}` the same inside Unicode isolates (FSI … PDI), for a host or a
 * DNS value inside Arabic text, whose dots, hyphens and underscores would otherwise take the
 * sentence's direction and come out scrambled.
 */
function fill(template: string, params: Params): string {
  return template.replace(/\{(~?)(\w+)\}/g, (whole, isolate: string, key: string) =>
    key in params ? (isolate ? `\u2068${String(params[key])}\u2069` : String(params[key])) : whole,
  );
}

export function translate(code: MessageCode, params: Params = {}): { en: string; ar: string } {
  const m = messages[code];
  return { en: fill(m.en, params), ar: fill(m.ar, params) };
}

export function translateReason(reason: ReasonCode, params: Params = {}): { en: string; ar: string } {
  const r = reasons[reason];
  return { en: fill(r.en, params), ar: fill(r.ar, params) };
}
