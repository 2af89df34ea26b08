/**
 * Partner program → Partners (operations.md §18 "Owner's dashboard"): every partner with their
 * standing, group, referral key and coupon codes, and their figures of the last 30 days (GET
 * /api/partners?withStats=true: clicks, leads, sales, revenue and earnings per currency). Filtered
 * by status and paged here; the allowed status moves as buttons (a ban asked first: it reverses
 * unpaid commissions), the group as a select, and a partner added (approved at once).
 */
import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import type { PageProps } from '../../session.js';
import { useAction } from '../../ui/action.js';
import { useConfirm } from '../../ui/confirm.js';
import { useDate } from '../../ui/date.js';
import { Paginator } from '../../ui/paginator.js';
import { Empty, ErrorLine, LoadFailure, Loading, useLoad } from '../../ui/states.js';
import { Table } from '../../ui/table.js';
import { Earnings, partnersWithStats, PARTNERS_READ, Revenue } from './partner-figures.js';
import { NoProgram } from './no-program.js';
import { strings, type ProgramStrings } from './strings.js';
import { isNoProgram, mayChangePartners, PARTNER_MOVES, PARTNER_STATUSES, type Partner, type PartnerGroup, type PartnerStatus } from './types.js';
import '../settings/settings.css';
import './program.css';

const PAGE = 25;

export function PartnersPage(props: PageProps) {
  const s = useStrings(strings);
  const [program, reloadProgram] = useLoad(() => api.GET('/api/program'));
  const [groups, reloadGroups] = useLoad(() => api.GET('/api/partner-groups'));
  const [partners, reloadPartners] = useLoad(partnersWithStats);
  const [status, setStatus] = useState<PartnerStatus | ''>('');
  const [page, setPage] = useState(0);
  const [done, setDone] = useState<string>();
  // The link of the invitation just made: shown once, to copy (it is also mailed when the server sends mail).
  const [inviteUrl, setInviteUrl] = useState<string>();
  const writable = mayChangePartners(props);
  if (program.kind === 'error' && isNoProgram(program.error)) return <NoProgram s={s} />;
  if (program.kind === 'error') return <LoadFailure error={program.error} retry={reloadProgram} />;
  if (groups.kind === 'error') return <LoadFailure error={groups.error} retry={reloadGroups} />;
  if (partners.kind === 'error') return <LoadFailure error={partners.error} retry={reloadPartners} />;
  if (program.kind === 'loading' || groups.kind === 'loading' || partners.kind === 'loading') return <Loading />;
  const changed = (message: string, url?: string) => {
    setDone(message);
    setInviteUrl(url);
    reloadPartners();
  };
  const shown = status ? partners.data.filter((p) => p.status === status) : partners.data;
  // A page past the end (its partners moved out of the filter): the last page there is.
  const last = Math.max(0, Math.ceil(shown.length / PAGE) - 1);
  const at = Math.min(page, last);
  return (
    <div class="program program-wide stack">
      <p class="program-intro">{s.partnersIntro}</p>
      {!writable && <p class="hint">{s.partnersReadOnly}</p>}
      <p role="status" class="status program-status">
        {done}
      </p>
      {inviteUrl && (
        <label class="field">
          <span>{s.inviteLink}</span>
          <input readOnly value={inviteUrl} dir="ltr" onFocus={(e) => e.currentTarget.select()} />
        </label>
      )}
      <form class="program-filters" aria-label={s.filters} onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for="partner-status">{s.status}</label>
          <select
            id="partner-status"
            name="status"
            value={status}
            onChange={(e) => {
              setStatus(e.currentTarget.value as PartnerStatus | '');
              setPage(0);
              setDone(undefined);
            }}
          >
            <option value="">{s.allStatuses}</option>
            {PARTNER_STATUSES.map((st) => (
              <option key={st} value={st}>
                {s.partnerStatuses[st]}
              </option>
            ))}
          </select>
        </div>
      </form>
      {partners.data.length >= PARTNERS_READ && <p class="hint">{s.tooManyPartners}</p>}
      <PartnerTable
        s={s}
        rows={shown.slice(at * PAGE, (at + 1) * PAGE)}
        all={partners.data.length}
        groups={groups.data}
        writable={writable}
        onChanged={changed}
      />
      <Paginator
        class="program-pages"
        label={s.partnerPages}
        page={at + 1}
        hasPrevious={at > 0}
        hasNext={at < last}
        onPrevious={() => setPage(at - 1)}
        onNext={() => setPage(at + 1)}
      />
      {writable && <AddPartner groups={groups.data} onAdded={(name) => changed(s.partnerAdded(name))} />}
    </div>
  );
}

interface TableProps {
  s: ProgramStrings;
  rows: Partner[];
  /** How many partners there are before the filter: none at all reads otherwise than none in a status. */
  all: number;
  groups: PartnerGroup[];
  writable: boolean;
  onChanged: (message: string, inviteUrl?: string) => void;
}

/** Who may be invited to the portal: a partner with an e-mail that nobody signs in as yet, who may still join. */
const invitable = (p: Partner): boolean => !!p.email && !p.userId && (p.status === 'invited' || p.status === 'pending' || p.status === 'approved');

function PartnerTable({ s, rows, all, groups, writable, onChanged }: TableProps) {
  const { busy, error, run } = useAction();
  const { confirm, dialog } = useConfirm();
  const date = useDate();
  const groupName = (id: string | null) => groups.find((g) => g.id === id)?.name ?? groups.find((g) => g.name === 'default')?.name ?? '—';
  const move = async (p: Partner, status: PartnerStatus) => {
    if (status === 'banned' && !(await confirm({ title: s.banQuestion(p.name), body: s.banBody, confirm: s.confirmBan, danger: true }))) return;
    if (await run(() => api.PUT('/api/partners', { body: [{ id: p.id, status }] }))) onChanged(s.moved(p.name, s.partnerStatuses[status]));
  };
  const invite = async (p: Partner) => {
    const made = await run(() => api.POST('/api/partner-invites', { body: [{ partnerId: p.id }] }));
    if (made) onChanged(s.invited(p.name, p.email ?? ''), made[0]?.url);
  };
  const regroup = async (p: Partner, groupId: string) => {
    if (await run(() => api.PUT('/api/partners', { body: [{ id: p.id, groupId }] }))) onChanged(s.groupChanged(p.name, groupName(groupId)));
  };
  if (rows.length === 0) return <Empty>{all === 0 ? s.noPartners : s.noPartnersInStatus}</Empty>;
  return (
    <>
      <ErrorLine error={error} />
      <Table
        class="program-table program-partners"
        region={{ class: 'program-scroll', label: s.partnersLabel }}
        columns={[s.partner, s.status, s.group, s.clicks, s.leads, s.sales, s.revenue, s.earnings]}
      >
        {rows.map((p) => (
          <tr key={p.id} data-partner={p.id}>
            <td class="program-partner-cell">
              <bdi class="cell-name">{p.name}</bdi>
              {p.email && (
                <span class="hint program-detail">
                  <bdi class="program-code-text" dir="ltr">
                    {p.email}
                  </bdi>
                </span>
              )}
              {p.referralKey && (
                <span class="hint program-detail">
                  {s.referralKey}:{' '}
                  <bdi class="program-code-text" dir="ltr">
                    {p.referralKey}
                  </bdi>
                </span>
              )}
              {writable && invitable(p) && (
                <span class="actions program-row-actions">
                  <button type="button" disabled={busy} aria-label={s.inviteFor(p.name)} onClick={() => invite(p)}>
                    {s.invite}
                  </button>
                </span>
              )}
              {p.payoutMethod && (
                <span class="hint program-detail">
                  {s.payoutDetailsOf(s.methods[p.payoutMethod], p.payoutDestination ?? '', date(p.payoutDetailsChangedAt))}
                </span>
              )}
              {p.couponCodes.length > 0 && (
                <span class="hint program-detail">
                  {s.coupons}:{' '}
                  <bdi class="program-code-text" dir="ltr">
                    {p.couponCodes.join(', ')}
                  </bdi>
                </span>
              )}
            </td>
            <td class="program-status-cell">
              <span class={`program-badge program-partner-${p.status}`}>{s.partnerStatuses[p.status]}</span>
              {writable && PARTNER_MOVES[p.status].length > 0 && (
                <span class="actions program-row-actions">
                  {PARTNER_MOVES[p.status].map((to) => (
                    <button
                      key={to}
                      type="button"
                      class={to === 'banned' || to === 'rejected' ? 'danger' : undefined}
                      disabled={busy}
                      aria-label={moveLabel(s, to, p.name)}
                      onClick={() => move(p, to)}
                    >
                      {moveWord(s, to)}
                    </button>
                  ))}
                </span>
              )}
            </td>
            <td class="program-group-cell">
              {writable ? (
                <select aria-label={s.groupOf(p.name)} value={p.groupId ?? ''} disabled={busy} onChange={(e) => regroup(p, e.currentTarget.value)}>
                  {groups.map((g) => (
                    <option key={g.id} value={g.id}>
                      {g.name}
                    </option>
                  ))}
                </select>
              ) : (
                <bdi>{groupName(p.groupId)}</bdi>
              )}
            </td>
            <td data-figure="clicks">{p.stats?.clicks ?? '—'}</td>
            <td data-figure="leads">{p.stats?.leads ?? '—'}</td>
            <td data-figure="sales">{p.stats?.sales ?? '—'}</td>
            <td data-figure="revenue">
              <Revenue stats={p.stats} />
            </td>
            <td data-figure="earnings">
              <Earnings stats={p.stats} />
            </td>
          </tr>
        ))}
      </Table>
      {dialog}
    </>
  );
}

/** The word of a status move's button. */
function moveWord(s: ProgramStrings, to: PartnerStatus): string {
  return to === 'approved' ? s.approve : to === 'rejected' ? s.reject : to === 'banned' ? s.ban : s.archive;
}

/** A status move's button named with its partner ("Approve Ana Partner"). */
function moveLabel(s: ProgramStrings, to: PartnerStatus, name: string): string {
  return to === 'approved' ? s.approveFor(name) : to === 'rejected' ? s.rejectPartnerFor(name) : to === 'banned' ? s.banFor(name) : s.archiveFor(name);
}

function AddPartner({ groups, onAdded }: { groups: PartnerGroup[]; onAdded: (name: string) => void }) {
  const s = useStrings(strings);
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [groupId, setGroupId] = useState(groups.find((g) => g.name === 'default')?.id ?? groups[0]?.id ?? '');
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const body = [{ name: name.trim(), ...(email.trim() ? { email: email.trim() } : {}), ...(groupId ? { groupId } : {}) }];
    const made = await run(() => api.POST('/api/partners', { body }));
    if (made) {
      setName('');
      setEmail('');
      onAdded(body[0]!.name);
    }
  };
  return (
    <form class="card-inline stack-tight program-add-partner" onSubmit={submit} aria-labelledby="program-add-partner">
      <h2 id="program-add-partner">{s.addPartnerTitle}</h2>
      <p class="hint">{s.addPartnerHelp}</p>
      <div class="program-add-fields">
        <div class="field">
          <label for="partner-name">{s.name}</label>
          <input id="partner-name" name="name" required maxLength={190} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="partner-email">{s.email}</label>
          <input
            id="partner-email"
            name="email"
            type="email"
            dir="ltr"
            maxLength={190}
            autoComplete="off"
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="partner-group">{s.group}</label>
          <select id="partner-group" name="groupId" value={groupId} onChange={(e) => setGroupId(e.currentTarget.value)}>
            {groups.map((g) => (
              <option key={g.id} value={g.id}>
                {g.name}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {s.addPartner}
        </button>
      </div>
    </form>
  );
}
