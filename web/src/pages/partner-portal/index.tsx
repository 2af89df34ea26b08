/**
 * The partner portal (/app/partner, operations.md §18): a partner's program, earnings, figures,
 * links, commissions, payouts and payout details. Every request names the program in
 * X-Program-Id; the server answers only this partner's rows.
 */
import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useLang, useStrings } from '../../i18n/index.js';
import type { Me } from '../../session.js';
import { formatMoney } from '../../ui/money.js';
import { Loaded, useLoad } from '../../ui/states.js';
import { LangSwitch } from '../lang-switch.js';
import { Figures } from './figures.js';
import { Commissions, Payouts } from './ledger.js';
import { Links } from './links.js';
import { PayoutDetailsForm } from './payout-details.js';
import { programHeader } from './program-header.js';
import { strings } from './strings.js';
import '../analytics/analytics.css';
import './portal.css';

const PROGRAM_KEY = 'linktrail.partnerProgram';

export function PartnerPortal({ me, onSignOut }: { me: Me; onSignOut: () => void }) {
  const s = useStrings(strings);
  const programs = me.partnerPrograms;
  const saved = localStorage.getItem(PROGRAM_KEY);
  const [programId, setProgramId] = useState(programs.find((p) => p.id === saved)?.id ?? programs[0]?.id);
  const choose = (id: string) => {
    localStorage.setItem(PROGRAM_KEY, id);
    setProgramId(id);
  };
  return (
    <main id="main" class="portal">
      <header class="portal-head">
        <h1>{s.title}</h1>
        {programs.length > 1 ? (
          <label class="field-inline">
            <span>{s.program}</span>
            <select value={programId} onChange={(e) => choose(e.currentTarget.value)}>
              {programs.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <LangSwitch />
        <button type="button" class="secondary" onClick={onSignOut}>
          {s.signOut}
        </button>
      </header>
      {programId ? <Program key={programId} programId={programId} /> : <p>{s.noProgram}</p>}
    </main>
  );
}

function Program({ programId }: { programId: string }) {
  const s = useStrings(strings);
  const lang = useLang();
  const [summary, reload] = useLoad(() => api.GET('/api/partner', { params: programHeader(programId) }));
  return (
    <Loaded state={summary} retry={reload}>
      {(data) => (
        <div class="stack">
          <section aria-labelledby="portal-program">
            <h2 id="portal-program">{data.program.name}</h2>
            <p>
              <bdi>{data.partner.name}</bdi> · {s.status(data.partner.status)}
            </p>
          </section>
          <section aria-labelledby="portal-earnings">
            <h2 id="portal-earnings">{s.earnings}</h2>
            {Object.keys(data.earnings).length === 0 ? (
              <p>{s.earningsNone}</p>
            ) : (
              <dl class="portal-cards">
                {Object.entries(data.earnings).flatMap(([currency, e]) =>
                  (['payable', 'pending', 'held', 'paid'] as const).map((state) => (
                    <div key={`${currency}-${state}`} class="portal-card">
                      <dt>{s[state]}</dt>
                      <dd>{formatMoney(lang, e[state] ?? 0, currency)}</dd>
                    </div>
                  )),
                )}
              </dl>
            )}
          </section>
          <Figures programId={programId} currency={data.program.currency} />
          <Links programId={programId} prefixes={data.program.linkPrefixes} max={data.program.maxPartnerLinks} approved={data.partner.status === 'approved'} />
          <Commissions programId={programId} />
          <Payouts programId={programId} />
          <PayoutDetailsForm programId={programId} />
        </div>
      )}
    </Loaded>
  );
}
