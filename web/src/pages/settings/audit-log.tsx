import { useContext, useEffect, useState } from 'preact/hooks';
import { api, errorText, jsonList } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import { download } from '../../ui/download.js';
import { usePagedList } from '../../ui/paged-list.js';
import { Paginator } from '../../ui/paginator.js';
import { Empty, LoadFailure, Loading } from '../../ui/states.js';
import { Table } from '../../ui/table.js';
import type { PageProps } from '../../session.js';
import { useDate } from '../../ui/date.js';
import './settings.css';
import './audit-log.css';

type Entry = components['schemas']['AuditEntry'];

const en = {
  intro: 'Every change to this workspace, by whom and from where, and its members’ sign-ins. Only owners see it.',
  filters: 'Filters',
  actor: 'Who',
  anyone: 'Anyone',
  action: 'Action',
  anyAction: 'Any action',
  from: 'From',
  to: 'To',
  apply: 'Apply',
  clear: 'Clear',
  download: 'Download CSV',
  downloadFailed: 'Could not download: ',
  tableLabel: 'Audit log entries',
  pagesLabel: 'Audit log pages',
  who: 'Who',
  what: 'What',
  when: 'When',
  where: 'From',
  records: (n: number) => (n === 1 ? '1 record' : `${n} records`),
  kinds: {
    user: 'Person',
    person: 'Person',
    key: 'API key',
    token: 'Personal token',
    app: 'OAuth app',
    operator: 'Operator',
    applicant: 'Applicant',
  } as Record<string, string>,
  deleted: 'deleted',
  none: 'none',
  empty: 'No entries match.',
  failed: 'Could not load the audit log: ',
  loading: 'Loading the audit log…',
};

const ar: typeof en = {
  intro: 'كل تغيير في مساحة العمل هذه، ومن أجراه ومن أين، وعمليات تسجيل دخول أعضائها. لا يراه إلا المالكون.',
  filters: 'عوامل التصفية',
  actor: 'من',
  anyone: 'أيّ أحد',
  action: 'الإجراء',
  anyAction: 'أي إجراء',
  from: 'من',
  to: 'إلى',
  apply: 'تطبيق',
  clear: 'مسح',
  download: 'تنزيل CSV',
  downloadFailed: 'تعذّر التنزيل: ',
  tableLabel: 'إدخالات سجل التدقيق',
  pagesLabel: 'صفحات سجل التدقيق',
  who: 'من',
  what: 'ماذا',
  when: 'متى',
  where: 'المصدر',
  records: (n: number) => (n === 1 ? 'سجل واحد' : n === 2 ? 'سجلان' : `${n} سجلات`),
  kinds: { user: 'شخص', person: 'شخص', key: 'مفتاح API', token: 'رمز شخصي', app: 'تطبيق OAuth', operator: 'المشغّل', applicant: 'متقدّم بطلب' },
  deleted: 'محذوف',
  none: 'لا شيء',
  empty: 'لا توجد إدخالات مطابقة.',
  failed: 'تعذّر تحميل سجل التدقيق: ',
  loading: 'جارٍ تحميل سجل التدقيق…',
};

const strings = { en, ar };
const PAGE_SIZE = 50;

/** The common actions, for the filter's list (the API documents them all; any may be typed in the actor box's neighbour). */
const ACTIONS = [
  'links.created',
  'links.upserted',
  'links.deleted',
  'collections.created',
  'tags.created',
  'partners.created',
  'customers.updated',
  'domain.created',
  'webhook.created',
  'webhook.deleted',
  'key.created',
  'key.revoked',
  'invite.created',
  'member.role_changed',
  'member.removed',
  'workspace.updated',
  'import.started',
  'sign_in.password.succeeded',
  'sign_in.password.failed',
  'sign_in.totp.failed',
];

interface Filter {
  actor: string;
  action: string;
  startDate: string;
  endDate: string;
}
const NO_FILTER: Filter = { actor: '', action: '', startDate: '', endDate: '' };

/** The API's query of a filter: empty boxes left out. */
const queryOf = (f: Filter) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== '')) as Partial<Filter>;

/** Settings → Audit log (operations.md §15): who changed what and when, from where; filters and a CSV download. */
export function AuditLogSettings(_: PageProps) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const date = useDate();
  const [draft, setDraft] = useState<Filter>(NO_FILTER);
  const [filter, setFilter] = useState<Filter>(NO_FILTER);
  const [page, setPage] = useState(0);
  const [failure, setFailure] = useState<unknown>();
  const { list, reload, loading } = usePagedList<Entry>(
    ({ take, skip, signal }) => jsonList(api.GET('/api/audit-log', { params: { query: { take, skip, ...queryOf(filter) } }, signal })),
    { page, size: PAGE_SIZE, deps: [filter], keep: true, onPastEnd: () => setPage((p) => Math.max(0, p - 1)) },
  );
  // Who appears in the log, by name: the filter is chosen from them (ids are the API's business).
  const [actors, setActors] = useState<{ id: string; kind: string; name: string | null }[]>([]);
  useEffect(() => {
    void api.GET('/api/audit-log/actors').then(({ data }) => data && setActors(data));
  }, []);
  const apply = (next: Filter) => {
    setFilter(next);
    setPage(0);
  };
  const save = async () => {
    setFailure(undefined);
    const { data, error } = await api.GET('/api/audit-log', { params: { query: { ...queryOf(filter), format: 'csv' } }, parseAs: 'text' });
    if (error !== undefined || data === undefined) return setFailure(error);
    // A byte-order mark, so spreadsheets read the file as UTF-8.
    download('\uFEFF' + (data as unknown as string), 'text/csv;charset=utf-8', `audit-log-${new Date().toISOString().slice(0, 10)}.csv`);
  };
  const box = (key: keyof Filter) => ({
    value: draft[key],
    onInput: (e: Event) => setDraft({ ...draft, [key]: (e.currentTarget as HTMLInputElement).value }),
  });

  return (
    <div class="settings stack audit-log">
      <p>{s.intro}</p>
      <form
        class="audit-filters"
        aria-label={s.filters}
        onSubmit={(e) => {
          e.preventDefault();
          apply(draft);
        }}
      >
        <label>
          {s.actor}
          <select name="actor" value={draft.actor} onChange={(e) => setDraft({ ...draft, actor: e.currentTarget.value })}>
            <option value="">{s.anyone}</option>
            {actors.map((a) => (
              <option key={a.id} value={a.id}>
                {`${a.name ?? `${a.id.slice(0, 8)}… (${s.deleted})`} — ${s.kinds[a.kind] ?? a.kind}`}
              </option>
            ))}
          </select>
        </label>
        <label>
          {s.action}
          <select name="action" value={draft.action} onChange={(e) => setDraft({ ...draft, action: e.currentTarget.value })}>
            <option value="">{s.anyAction}</option>
            {ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label>
          {s.from}
          <input type="date" name="startDate" {...box('startDate')} />
        </label>
        <label>
          {s.to}
          <input type="date" name="endDate" {...box('endDate')} />
        </label>
        <div class="audit-buttons">
          <button type="submit" class="primary">
            {s.apply}
          </button>
          <button
            type="button"
            onClick={() => {
              setDraft(NO_FILTER);
              apply(NO_FILTER);
            }}
          >
            {s.clear}
          </button>
          <button type="button" onClick={save}>
            {s.download}
          </button>
        </div>
      </form>
      {failure !== undefined && (
        <p role="alert" class="error">
          {s.downloadFailed}
          {errorText(failure, lang)}
        </p>
      )}
      {list.kind === 'loading' && <Loading text={s.loading} />}
      {list.kind === 'error' && <LoadFailure lead={s.failed} error={list.error} retry={reload} />}
      {list.kind === 'ready' &&
        (list.rows.length === 0 ? (
          <Empty>{s.empty}</Empty>
        ) : (
          <Table class="audit-table" columns={[s.when, s.who, s.what, s.where]} region={{ class: 'audit-scroll', label: s.tableLabel, busy: loading }}>
            {list.rows.map((e) => (
              <tr key={e.id}>
                <td>
                  <time dateTime={String(e.at)}>{date(String(e.at))}</time>
                </td>
                <td>
                  <span class="audit-kind">{s.kinds[e.actor.kind] ?? e.actor.kind}</span> <bdi>{e.actor.name ?? e.actor.id}</bdi>
                </td>
                <td>
                  <code dir="ltr">{e.action}</code>
                  {e.targetIds.length > 0 && <span class="audit-count"> · {s.records(e.targetIds.length)}</span>}
                  {Object.entries(e.changes).map(([field, c]) => (
                    <div key={field} class="audit-change" dir="ltr">
                      {field}: {String(c.before ?? s.none)} → {String(c.after ?? s.none)}
                    </div>
                  ))}
                </td>
                <td>
                  <bdi dir="ltr">{e.ip ?? ''}</bdi>
                  {e.userAgent && <div class="audit-ua">{e.userAgent}</div>}
                </td>
              </tr>
            ))}
          </Table>
        ))}
      <Paginator
        class="audit-pages"
        label={s.pagesLabel}
        page={page + 1}
        hasPrevious={page > 0}
        hasNext={list.kind === 'ready' && list.more}
        onPrevious={() => setPage((p) => p - 1)}
        onNext={() => setPage((p) => p + 1)}
      />
    </div>
  );
}
