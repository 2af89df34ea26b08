import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import { useAction } from '../../ui/action.js';
import { useDate } from '../../ui/date.js';
import { ErrorLine, Loaded, useLoad } from '../../ui/states.js';
import { programHeader } from './program-header.js';
import { strings } from './strings.js';

type Method = 'paypal' | 'wise' | 'bank';

/** The partner's payout details: what they are now (masked), and a form to change them with the password. */
export function PayoutDetailsForm({ programId }: { programId: string }) {
  const s = useStrings(strings);
  const date = useDate();
  const [current, reload] = useLoad(() => api.GET('/api/partner/payout-details', { params: programHeader(programId) }));
  const [method, setMethod] = useState<Method>('paypal');
  const { busy, error, run } = useAction();
  const [saved, setSaved] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const d = new FormData(form);
    const text = (name: string) => String(d.get(name) ?? '').trim() || undefined;
    setSaved(false);
    const body = { method, email: text('email'), holderName: text('holderName'), details: text('details'), password: String(d.get('password') ?? '') };
    const done = await run(() => api.PUT('/api/partner/payout-details', { params: programHeader(programId), body }));
    if (!done) return;
    form.reset();
    setSaved(true);
    reload();
  };
  return (
    <section aria-labelledby="portal-details" class="stack-tight">
      <h2 id="portal-details">{s.payoutDetails}</h2>
      <Loaded state={current} retry={reload}>
        {(d) => (
          <p>
            {d.method && d.destination ? (
              <>
                {s.currentDetails(s.methods[d.method] ?? d.method, date(d.changedAt))}{' '}
                <span dir="ltr" class="portal-destination">
                  {d.destination}
                </span>
              </>
            ) : (
              s.noDetails
            )}
          </p>
        )}
      </Loaded>
      <form class="card-form stack-tight" onSubmit={(e) => void save(e)}>
        <label class="field">
          <span>{s.method}</span>
          <select name="method" value={method} onChange={(e) => setMethod(e.currentTarget.value as Method)}>
            {(['paypal', 'wise', 'bank'] as const).map((m) => (
              <option key={m} value={m}>
                {s.methods[m]}
              </option>
            ))}
          </select>
        </label>
        {method === 'bank' ? null : (
          <label class="field">
            <span>{s.payoutEmail}</span>
            <input name="email" type="email" required dir="ltr" autocomplete="email" />
          </label>
        )}
        {method === 'paypal' ? null : (
          <label class="field">
            <span>{s.holderName}</span>
            <input name="holderName" type="text" required={method === 'bank'} maxLength={190} autocomplete="name" />
          </label>
        )}
        {method === 'bank' ? (
          <label class="field">
            <span>{s.bankDetails}</span>
            <textarea name="details" required maxLength={1000} dir="ltr" rows={2} />
          </label>
        ) : null}
        <label class="field">
          <span>{s.password}</span>
          <input name="password" type="password" required autocomplete="current-password" />
        </label>
        <ErrorLine error={error} />
        {saved ? <p role="status">{s.saved}</p> : null}
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? s.working : s.save}
          </button>
        </div>
      </form>
    </section>
  );
}
