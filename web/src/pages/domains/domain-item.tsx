import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import { ConfirmButton } from '../../ui/confirm.js';
import { CopyButton } from '../../ui/copy.js';
import { ErrorLine } from '../../ui/states.js';
import { useAction } from '../../ui/action.js';
import { useDate } from '../../ui/date.js';
import { strings } from './strings.js';
import { TargetsForm } from './targets-form.js';
import type { Domain } from './types.js';

interface Props {
  domain: Domain;
  /** Something changed on the server (verified, saved, removed): the page says `message` and reads the list again. */
  onChanged: (message: string) => void;
}

/** One claimed host: its status, its TXT record while pending (with Verify), where it sends visitors, Edit and Remove. */
export function DomainItem({ domain: d, onChanged }: Props) {
  const w = useStrings(strings);
  const date = useDate();
  const [editing, setEditing] = useState(false);
  const verifying = useAction();
  const removing = useAction();
  const verify = async () => {
    const answer = await verifying.run(() => api.POST('/api/domains/{id}/verify', { params: { path: { id: d.id } } }));
    if (answer) onChanged(w.verified(d.host));
  };
  const remove = async () => {
    const answer = await removing.run(() => api.DELETE('/api/domains/{id}', { params: { path: { id: d.id } } }));
    if (answer) onChanged(w.removed(d.host));
  };
  const pending = d.status === 'pending';
  return (
    <li class={pending ? 'item dom-item dim' : 'item dom-item'} aria-labelledby={`dom-${d.id}`}>
      <div class="item-main">
        <span class="title" id={`dom-${d.id}`}>
          <code>{d.host}</code>
          <span class={pending ? 'badge dom-pending' : 'badge current'}>{pending ? w.pending : w.active}</span>
        </span>
        <dl class="meta">
          <div>
            <dt>{d.verifiedAt ? w.verifiedAt : w.claimedAt}</dt>
            <dd>{date(d.verifiedAt ?? d.createdAt)}</dd>
          </div>
        </dl>
        {editing ? (
          <TargetsForm
            domain={d}
            onCancel={() => setEditing(false)}
            onSaved={() => {
              setEditing(false);
              onChanged(w.saved(d.host));
            }}
          />
        ) : (
          <dl class="facts dom-targets">
            <dt>{w.rootUrl}</dt>
            <dd>{d.rootUrl ? <code>{d.rootUrl}</code> : w.notSet}</dd>
            <dt>{w.notFoundUrl}</dt>
            <dd>{d.notFoundUrl ? <code>{d.notFoundUrl}</code> : w.notSet}</dd>
          </dl>
        )}
      </div>
      <div class="item-actions">
        {!editing && (
          <button type="button" onClick={() => setEditing(true)} aria-label={w.editFor(d.host)}>
            {w.edit}
          </button>
        )}
        <ConfirmButton label={w.remove} accessibleName={w.removeFor(d.host)} question={w.removeQuestion(d.host)} confirm={w.confirmRemove} onConfirm={remove} />
      </div>
      {/* The record, its Verify and what the DNS answered take the item's whole width (the value is long). */}
      {(pending || removing.error) && (
        <div class="dom-detail">
          {pending && (
            <TxtRecord domain={d}>
              <button type="button" class="dom-verify" disabled={verifying.busy} onClick={verify} aria-label={verifying.busy ? undefined : w.verifyFor(d.host)}>
                {verifying.busy ? w.verifying : w.verify}
              </button>
            </TxtRecord>
          )}
          <ErrorLine error={verifying.error ?? removing.error} />
        </div>
      )}
    </li>
  );
}

/** The DNS record that proves the claim, each part with a Copy button; then `children` (Verify). */
function TxtRecord({ domain: d, children }: { domain: Domain; children: ComponentChildren }) {
  const w = useStrings(strings);
  return (
    <div class="dom-record">
      <p>{w.recordTitle}</p>
      <dl>
        <dt>{w.recordType}</dt>
        <dd>
          <code>TXT</code>
        </dd>
        <dt>{w.recordName}</dt>
        <dd>
          <code>{d.verification.txtName}</code>
          <CopyButton text={d.verification.txtName} label={w.copyName(d.host)} announce />
        </dd>
        <dt>{w.recordValue}</dt>
        <dd>
          <code>{d.verification.txtValue}</code>
          <CopyButton text={d.verification.txtValue} label={w.copyValue(d.host)} announce />
        </dd>
      </dl>
      {children}
    </div>
  );
}
