/**
 * Partner program → Payouts: what is payable per currency, a payout made of it (POST
 * /api/payouts) with who was left out and why, its batch file for PayPal, Wise or a spreadsheet,
 * and once the money is sent, marked complete (or cancelled). Linktrail moves no money.
 */
import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useLang, useStrings } from '../../i18n/index.js';
import type { PageProps } from '../../session.js';
import { useAction } from '../../ui/action.js';
import { ConfirmButton } from '../../ui/confirm.js';
import { useDate } from '../../ui/date.js';
import { download } from '../../ui/download.js';
import { formatMoney } from '../../ui/money.js';
import { Empty, ErrorLine, LoadFailure, Loaded, Loading, useLoad } from '../../ui/states.js';
import { Table } from '../../ui/table.js';
import { allCommissions, TotalsList, unclaimed } from './payable.js';
import { strings, type ProgramStrings } from './strings.js';
import { totalsByCurrency } from './totals.js';
import { mayChangeProgram, type PartnerLite, type Payout, type PayoutMethod, type PayoutSummary } from './types.js';
import '../settings/settings.css';
import './program.css';

const METHODS: PayoutMethod[] = ['paypal', 'wise', 'bank'];
const FORMATS = ['paypal', 'wise', 'csv'] as const;
type Names = Map<string, string> | undefined;

export function PayoutsPage(props: PageProps) {
  const s = useStrings(strings);
  const writable = mayChangeProgram(props);
  const [payable, reloadPayable] = useLoad(() => allCommissions('payable'));
  const [payouts, reloadPayouts] = useLoad(() => api.GET('/api/payouts', { params: { query: { take: 100, sort: 'desc' } } }));
  const [partners] = useLoad(() => api.GET('/api/partners', { params: { query: { take: 5000 } } }));
  const names: Names = partners.kind === 'ready' ? new Map((partners.data as PartnerLite[]).map((p) => [p.id, p.name])) : undefined;
  const [done, setDone] = useState<string>();
  const [made, setMade] = useState<Payout>();
  const changed = (message: string) => {
    setDone(message);
    reloadPayable();
    reloadPayouts();
  };
  const totals = payable.kind === 'ready' ? totalsByCurrency(unclaimed(payable.data.rows)) : new Map<string, bigint>();
  return (
    <div class="program stack">
      <p class="program-intro">{s.payoutsIntro}</p>
      {!writable && <p class="hint">{s.payoutsReadOnly}</p>}
      <p role="status" class="status program-status">
        {done}
      </p>
      <section aria-labelledby="payouts-payable" class="stack-tight">
        <h2 id="payouts-payable">{s.payableNow}</h2>
        {payable.kind === 'loading' && <Loading />}
        {payable.kind === 'error' && <LoadFailure error={payable.error} retry={reloadPayable} />}
        {payable.kind === 'ready' && (
          <dl class="totals program-totals">
            <TotalsList totals={totals} label={s.perCurrency} />
          </dl>
        )}
        {writable && totals.size > 0 && (
          <NewPayout
            currencies={[...totals.keys()]}
            onMade={(p, total) => {
              setMade(p);
              changed(s.payoutMade(total));
            }}
          />
        )}
      </section>
      {made && <PayoutItems payout={made} names={names} headed />}
      <section aria-labelledby="payouts-list" class="stack-tight">
        <h2 id="payouts-list">{s.payoutsTitle}</h2>
        <Loaded state={payouts} retry={reloadPayouts}>
          {(list) =>
            list.length === 0 ? (
              <Empty>{s.noPayouts}</Empty>
            ) : (
              <ul class="items">
                {list.map((p) => (
                  <PayoutItem key={p.id} payout={p} names={names} writable={writable} onChanged={changed} />
                ))}
              </ul>
            )
          }
        </Loaded>
      </section>
    </div>
  );
}

function NewPayout({ currencies, onMade }: { currencies: string[]; onMade: (p: Payout, total: string) => void }) {
  const s = useStrings(strings);
  const lang = useLang();
  const [currency, setCurrency] = useState(currencies[0]!);
  const [method, setMethod] = useState<PayoutMethod | ''>('');
  const { busy, error, run } = useAction();
  const chosen = currencies.includes(currency) ? currency : currencies[0]!;
  const submit = async (e: Event) => {
    e.preventDefault();
    const made = await run(() => api.POST('/api/payouts', { body: { currency: chosen, ...(method ? { method } : {}) } }));
    if (made) onMade(made, formatMoney(lang, made.total, made.currency));
  };
  return (
    <form class="card-inline stack-tight" onSubmit={submit} aria-labelledby="payouts-new">
      <h3 id="payouts-new">{s.newPayout}</h3>
      <p class="hint">{s.newPayoutHelp}</p>
      <div class="program-filters">
        <div class="field">
          <label for="payout-currency">{s.currency}</label>
          <select id="payout-currency" name="currency" value={chosen} onChange={(e) => setCurrency(e.currentTarget.value)}>
            {currencies.map((c) => (
              <option key={c} value={c}>
                {c.toUpperCase()}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="payout-method">{s.method}</label>
          <select id="payout-method" name="method" value={method} onChange={(e) => setMethod(e.currentTarget.value as PayoutMethod | '')}>
            <option value="">{s.anyMethod}</option>
            {METHODS.map((m) => (
              <option key={m} value={m}>
                {s.methods[m]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {s.createPayout}
        </button>
      </div>
    </form>
  );
}

/** A payout's partners (amount, method, masked destination), and who was left out and why. */
function PayoutItems({ payout: p, names, headed = false }: { payout: Payout; names: Names; headed?: boolean }) {
  const s = useStrings(strings);
  const lang = useLang();
  const nameOf = (id: string) => (names ? (names.get(id) ?? s.unknownPartner) : '…');
  const total = formatMoney(lang, p.total, p.currency);
  const body = (
    <>
      {p.items.length === 0 ? (
        <Empty>{s.noItems}</Empty>
      ) : (
        <Table
          class="program-table"
          region={{ class: 'program-scroll', label: `${s.itemsLabel}: ${total}` }}
          columns={[s.partner, s.amount, s.method, s.destination]}
        >
          {p.items.map((item) => (
            <tr key={item.partnerId}>
              <td>
                <bdi class="cell-name">{nameOf(item.partnerId)}</bdi>
              </td>
              <td>
                <bdi>{formatMoney(lang, item.amount, p.currency)}</bdi>
              </td>
              <td>{item.method ? s.methods[item.method] : '—'}</td>
              <td>
                <bdi>{item.destination ?? '—'}</bdi>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {p.skipped.length > 0 && <Skipped skipped={p.skipped} nameOf={nameOf} s={s} />}
    </>
  );
  if (!headed) return <div class="stack-tight program-payout-items">{body}</div>;
  return (
    <section aria-labelledby="payouts-result" class="card-inline stack-tight">
      <h2 id="payouts-result">{s.payoutOf(total)}</h2>
      {body}
    </section>
  );
}

function Skipped({ skipped, nameOf, s }: { skipped: Payout['skipped']; nameOf: (id: string) => string; s: ProgramStrings }) {
  return (
    <div class="stack-tight">
      <h3>{s.skippedTitle}</h3>
      <ul class="program-reasons">
        {skipped.map((k) => (
          <li key={k.partnerId}>
            <bdi>{nameOf(k.partnerId)}</bdi>: {s.skipReasons[k.reason] ?? k.reason}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The file's name the server gives (Content-Disposition), else one of ours. */
function fileName(response: Response | undefined, fallback: string): string {
  const header = response?.headers.get('content-disposition') ?? '';
  return /filename="([^"]+)"/.exec(header)?.[1] ?? fallback;
}

interface ItemProps {
  payout: PayoutSummary;
  names: Names;
  writable: boolean;
  onChanged: (message: string) => void;
}

function PayoutItem({ payout: p, names, writable, onChanged }: ItemProps) {
  const s = useStrings(strings);
  const lang = useLang();
  const date = useDate();
  const { busy, error, run } = useAction();
  const [reference, setReference] = useState('');
  const [items, setItems] = useState<Payout>();
  const total = formatMoney(lang, p.total, p.currency);
  const path = { params: { path: { id: p.id } } };
  const pending = p.status === 'pending';
  // A file of more rows than the provider takes comes in parts (Linktrail-Parts): each is saved.
  const save = async (format: (typeof FORMATS)[number]) => {
    let parts = 1;
    for (let part = 1; part <= parts; part++) {
      const answer = await run(async () => {
        const r = await api.GET('/api/payouts/{id}/file', { params: { path: { id: p.id }, query: { format, part } }, parseAs: 'text' });
        parts = Number(r.response.headers.get('linktrail-parts') ?? '1') || 1;
        return { data: { text: r.data as string | undefined, name: fileName(r.response, `payout-${p.currency}-${format}-${part}.csv`) }, error: r.error };
      });
      if (answer?.text === undefined) return;
      download(answer.text, 'text/csv;charset=utf-8', answer.name);
    }
  };
  const toggleItems = async () => {
    if (items) return setItems(undefined);
    const full = await run(() => api.GET('/api/payouts/{id}', path));
    if (full) setItems(full);
  };
  return (
    <li class={pending ? 'item program-payout' : 'item dim program-payout'} data-payout={p.id}>
      <div class="item-main">
        <span class="title">
          <bdi>{total}</bdi> <span class={`program-badge program-payout-${p.status}`}>{s.payoutStatuses[p.status]}</span>
        </span>
        <span class="hint">
          {s.payoutFacts(date(p.createdAt), p.currency)}
          {p.method ? ` · ${s.methods[p.method as PayoutMethod] ?? p.method}` : ''}
        </span>
        {p.reference && <span class="hint">{s.referenceIs(p.reference)}</span>}
        {p.failedPartnerIds.length > 0 && <span class="hint">{s.failedCount(p.failedPartnerIds.length)}</span>}
        <ErrorLine error={error} />
      </div>
      <div class="item-actions">
        <button
          type="button"
          disabled={busy}
          aria-expanded={items ? 'true' : 'false'}
          aria-label={items ? undefined : s.showItemsFor(total)}
          onClick={toggleItems}
        >
          {items ? s.hideItems : s.showItems}
        </button>
        {writable &&
          FORMATS.map((f) => (
            <button key={f} type="button" disabled={busy} aria-label={s.downloadFor(s.formats[f], total)} onClick={() => save(f)}>
              {s.formats[f]}
            </button>
          ))}
        {writable && pending && (
          <ConfirmButton
            label={s.cancelPayout}
            accessibleName={s.cancelPayoutFor(total)}
            question={s.cancelQuestion(total)}
            confirm={s.confirmCancel}
            onConfirm={async () => {
              if (await run(() => api.POST('/api/payouts/{id}/cancel', path))) onChanged(s.cancelled(total));
            }}
          />
        )}
      </div>
      {writable && pending && (
        <form
          class="program-complete"
          onSubmit={async (e) => {
            e.preventDefault();
            const body = reference.trim() ? { reference: reference.trim() } : {};
            if (await run(() => api.POST('/api/payouts/{id}/complete', { ...path, body }))) onChanged(s.completed(total));
          }}
        >
          <div class="field">
            <label for={`reference-${p.id}`}>{s.reference}</label>
            <input id={`reference-${p.id}`} name="reference" maxLength={190} value={reference} onInput={(e) => setReference(e.currentTarget.value)} />
          </div>
          <button type="submit" disabled={busy} aria-label={s.completeFor(total)}>
            {s.complete}
          </button>
        </form>
      )}
      {items && <PayoutItems payout={items} names={names} />}
    </li>
  );
}
