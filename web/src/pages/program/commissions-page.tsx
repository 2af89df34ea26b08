/**
 * Partner program → Commissions: what partners earned, newest first, filtered by status,
 * partner and currency, each amount in its own currency (never added across currencies). Held
 * ones show why (the fraud rules that fired) with Release and Reject; reversed ones say why.
 */
import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useLang, useStrings } from '../../i18n/index.js';
import type { PageProps } from '../../session.js';
import { useAction } from '../../ui/action.js';
import { useDate } from '../../ui/date.js';
import { formatMoney } from '../../ui/money.js';
import { usePagedList } from '../../ui/paged-list.js';
import { Paginator } from '../../ui/paginator.js';
import { Empty, ErrorLine, LoadFailure, Loading, useLoad } from '../../ui/states.js';
import { Table } from '../../ui/table.js';
import { strings, type ProgramStrings } from './strings.js';
import { COMMISSION_STATUSES, mayChangeProgram, type Commission, type CommissionStatus, type PartnerLite } from './types.js';
import '../settings/settings.css';
import './program.css';

const PAGE = 25;

interface Filter {
  status: CommissionStatus | '';
  partnerId: string;
  currency: string;
}

export function CommissionsPage(props: PageProps) {
  const s = useStrings(strings);
  const [filter, setFilter] = useState<Filter>({ status: '', partnerId: '', currency: '' });
  const [page, setPage] = useState(0);
  const [partners] = useLoad(() => api.GET('/api/partners', { params: { query: { take: 5000 } } }));
  const partnerList: PartnerLite[] = partners.kind === 'ready' ? (partners.data as PartnerLite[]) : [];
  // Until the partners are read a name is unknown, not gone.
  const names = partners.kind === 'ready' ? new Map(partnerList.map((p) => [p.id, p.name])) : undefined;
  const [done, setDone] = useState<string>();
  const writable = mayChangeProgram(props);
  const change = (next: Partial<Filter>) => {
    setFilter((f) => ({ ...f, ...next }));
    setPage(0);
    setDone(undefined);
  };
  return (
    <div class="program stack">
      <p class="program-intro">{s.commissionsIntro}</p>
      <Filters s={s} filter={filter} partners={partnerList} onChange={change} />
      <p role="status" class="status program-status">
        {done}
      </p>
      <CommissionList filter={filter} page={page} onPage={setPage} names={names} writable={writable} onDone={setDone} />
    </div>
  );
}

function Filters({ s, filter, partners, onChange }: { s: ProgramStrings; filter: Filter; partners: PartnerLite[]; onChange: (f: Partial<Filter>) => void }) {
  const [currency, setCurrency] = useState(filter.currency);
  const applyCurrency = () => {
    const code = currency.trim().toLowerCase();
    if (code === '' || /^[a-z]{3}$/.test(code)) onChange({ currency: code });
  };
  return (
    <form
      class="program-filters"
      aria-label={s.filters}
      onSubmit={(e) => {
        e.preventDefault();
        applyCurrency();
      }}
    >
      <div class="field">
        <label for="commission-status">{s.status}</label>
        <select id="commission-status" name="status" value={filter.status} onChange={(e) => onChange({ status: e.currentTarget.value as Filter['status'] })}>
          <option value="">{s.allStatuses}</option>
          {COMMISSION_STATUSES.map((st) => (
            <option key={st} value={st}>
              {s.statuses[st]}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="commission-partner">{s.partner}</label>
        <select id="commission-partner" name="partnerId" value={filter.partnerId} onChange={(e) => onChange({ partnerId: e.currentTarget.value })}>
          <option value="">{s.allPartners}</option>
          {partners.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="commission-currency">{s.currencyFilter}</label>
        <input
          id="commission-currency"
          name="currency"
          dir="ltr"
          maxLength={3}
          placeholder={s.allCurrencies}
          value={currency}
          onInput={(e) => setCurrency(e.currentTarget.value)}
          onChange={applyCurrency}
        />
      </div>
    </form>
  );
}

interface ListProps {
  filter: Filter;
  page: number;
  onPage: (page: number) => void;
  /** Partners' names by id; undefined while they load. */
  names: Map<string, string> | undefined;
  writable: boolean;
  onDone: (message: string) => void;
}

function CommissionList({ filter, page, onPage, names, writable, onDone }: ListProps) {
  const s = useStrings(strings);
  const query = {
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.partnerId ? { partnerId: filter.partnerId } : {}),
    ...(filter.currency ? { currency: filter.currency } : {}),
  };
  const { list, loading, reload } = usePagedList<Commission>(
    ({ take, skip, signal }) => api.GET('/api/commissions', { params: { query: { ...query, take, skip, sort: 'desc' } }, signal }),
    { page, size: PAGE, deps: [JSON.stringify(query)], keep: true, onPastEnd: () => onPage(Math.max(0, page - 1)) },
  );
  const { busy, error, run } = useAction();
  const nameOf = (id: string) => (names ? (names.get(id) ?? s.unknownPartner) : '…');
  const act = async (c: Commission, status: 'pending' | 'reversed', message: string) => {
    const body = [status === 'reversed' ? { id: c.id, status, reason: 'fraud' as const } : { id: c.id, status }];
    if (await run(() => api.PATCH('/api/commissions', { body }))) {
      onDone(message);
      reload();
    }
  };
  if (list.kind === 'loading') return <Loading />;
  if (list.kind === 'error') return <LoadFailure error={list.error} retry={reload} />;
  if (list.rows.length === 0 && page === 0) return <Empty>{s.noCommissions}</Empty>;
  return (
    <>
      <ErrorLine error={error} />
      <Table
        class="program-table program-commissions"
        region={{ class: 'program-scroll', label: s.commissionsLabel, busy: loading }}
        columns={[s.partner, s.earnings, s.status, s.kind, s.date]}
      >
        {list.rows.map((c) => (
          <CommissionRow key={c.id} c={c} partner={nameOf(c.partnerId)} writable={writable} busy={busy} onAct={act} />
        ))}
      </Table>
      <Paginator
        class="program-pages"
        label={s.commissionPages}
        page={page + 1}
        hasPrevious={page > 0}
        hasNext={list.more}
        onPrevious={() => onPage(page - 1)}
        onNext={() => onPage(page + 1)}
      />
    </>
  );
}

interface RowProps {
  c: Commission;
  partner: string;
  writable: boolean;
  busy: boolean;
  onAct: (c: Commission, status: 'pending' | 'reversed', message: string) => void;
}

function CommissionRow({ c, partner, writable, busy, onAct }: RowProps) {
  const s = useStrings(strings);
  const lang = useLang();
  const date = useDate();
  const amount = formatMoney(lang, c.earnings, c.currency);
  return (
    <tr data-commission={c.id}>
      <td>
        <bdi class="cell-name">{partner}</bdi>
        {c.description && <span class="hint program-description">{c.description}</span>}
      </td>
      <td>
        <bdi>{amount}</bdi>
      </td>
      <td class="program-status-cell">
        <span class={`program-badge program-${c.status}`}>{s.statuses[c.status]}</span>
        {c.status === 'held' && c.holdReasons.length > 0 && (
          <ul class="program-reasons">
            {c.holdReasons.map((r) => (
              <li key={r}>{s.holdReasons[r] ?? r}</li>
            ))}
          </ul>
        )}
        {c.status === 'reversed' && c.reversedReason && <span class="hint program-reason">{s.reversedReasons[c.reversedReason] ?? c.reversedReason}</span>}
        {c.status === 'pending' && <span class="hint program-reason">{s.payableOn(date(c.payableAt))}</span>}
        {writable && c.status === 'held' && (
          <span class="actions program-row-actions">
            <button type="button" disabled={busy} aria-label={s.releaseFor(partner, amount)} onClick={() => onAct(c, 'pending', s.released(partner, amount))}>
              {s.release}
            </button>
            <button
              type="button"
              class="danger"
              disabled={busy}
              aria-label={s.rejectFor(partner, amount)}
              onClick={() => onAct(c, 'reversed', s.rejected(partner, amount))}
            >
              {s.reject}
            </button>
          </span>
        )}
      </td>
      <td>{s.kinds[c.type] ?? c.type}</td>
      <td>
        <time dateTime={c.createdAt}>{date(c.createdAt)}</time>
      </td>
    </tr>
  );
}
