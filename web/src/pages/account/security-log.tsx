import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import { Empty, Loaded, useLoad } from '../../ui/states.js';
import { Table } from '../../ui/table.js';
import { useDate } from '../../ui/date.js';
import '../settings/audit-log.css';

const en = {
  title: 'Recent sign-ins',
  intro: 'Sign-ins to your account, failed ones included, newest first. One you do not recognise? Change your password and turn on two-factor sign-in.',
  tableLabel: 'Your recent sign-ins',
  when: 'When',
  how: 'How',
  outcome: 'Result',
  where: 'From',
  none: 'No sign-ins recorded yet.',
  methods: { password: 'Password', totp: 'Authenticator code', recovery_code: 'Recovery code', passkey: 'Passkey', sso: 'Single sign-on' } as Record<
    string,
    string
  >,
  outcomes: { succeeded: 'Signed in', failed: 'Failed', second_factor_required: 'Password right, second step asked' } as Record<string, string>,
};

const ar: typeof en = {
  title: 'عمليات تسجيل الدخول الأخيرة',
  intro: 'عمليات تسجيل الدخول إلى حسابك، بما فيها الفاشلة، الأحدث أولًا. هل ترى عملية لا تعرفها؟ غيّر كلمة المرور وفعّل التحقق بخطوتين.',
  tableLabel: 'عمليات تسجيل دخولك الأخيرة',
  when: 'متى',
  how: 'الطريقة',
  outcome: 'النتيجة',
  where: 'المصدر',
  none: 'لا توجد عمليات تسجيل دخول مسجلة بعد.',
  methods: { password: 'كلمة المرور', totp: 'رمز تطبيق المصادقة', recovery_code: 'رمز استرداد', passkey: 'مفتاح مرور', sso: 'الدخول الموحد' },
  outcomes: { succeeded: 'تم تسجيل الدخول', failed: 'فشل', second_factor_required: 'كلمة المرور صحيحة، وطُلبت الخطوة الثانية' },
};

/**
 * A person's own sign-ins (GET /api/me/security-log, operations.md §15), for Account → Security:
 * when, how, the outcome and from where. A section, to be mounted by the account page.
 */
export function SecurityLogSection() {
  const s = useStrings({ en, ar });
  const date = useDate();
  const [log, reload] = useLoad(() => api.GET('/api/me/security-log', { params: { query: { take: 20 } } }));
  return (
    <section aria-labelledby="security-log-heading">
      <h2 id="security-log-heading">{s.title}</h2>
      <p>{s.intro}</p>
      <Loaded state={log} retry={reload}>
        {(list) =>
          list.length === 0 ? (
            <Empty>{s.none}</Empty>
          ) : (
            <Table class="audit-table" columns={[s.when, s.how, s.outcome, s.where]} region={{ class: 'audit-scroll', label: s.tableLabel }}>
              {list.map((e) => (
                <tr key={e.id}>
                  <td>
                    <time dateTime={String(e.at)}>{date(String(e.at))}</time>
                  </td>
                  <td>{s.methods[e.method] ?? e.method}</td>
                  <td class={e.outcome === 'failed' ? 'error' : undefined}>{s.outcomes[e.outcome] ?? e.outcome}</td>
                  <td>
                    <bdi dir="ltr">{e.ip ?? ''}</bdi>
                    {e.userAgent && <div class="audit-ua">{e.userAgent}</div>}
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loaded>
    </section>
  );
}
