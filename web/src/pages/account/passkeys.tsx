import { browserSupportsWebAuthn, startRegistration, type PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import { Empty, ErrorLine, Loaded, useLoad } from '../../ui/states.js';
import { meChanged } from '../../me-changed.js';
import { useAction } from '../../ui/action.js';
import { useDate } from '../../ui/date.js';

interface Passkey {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

const en = {
  title: 'Passkeys',
  intro:
    'A passkey signs you in with this device’s screen lock or a security key instead of a code. With a passkey, signing in with the password also asks for it; a passkey can also sign you in on its own.',
  unsupported: 'This browser cannot use passkeys.',
  none: 'No passkeys yet.',
  add: 'Add a passkey',
  name: 'Name (optional)',
  namePlaceholder: 'e.g. Work laptop',
  password: 'Current password',
  passwordHelp: 'Your password first; then your browser asks for the passkey.',
  create: 'Continue',
  cancel: 'Cancel',
  added: (name: string) => `Passkey “${name}” added.`,
  cancelled: 'No passkey was made (cancelled or timed out).',
  created: 'Added',
  lastUsed: 'Last used',
  never: 'Never',
  remove: 'Remove',
  removeLabel: (name: string) => `Remove passkey “${name}”`,
  removeQuestion: (name: string) => `Remove the passkey “${name}”? It will no longer sign you in. Enter your password to confirm.`,
  confirmRemove: 'Yes, remove it',
  removed: (name: string) => `Passkey “${name}” removed.`,
};
const ar: typeof en = {
  title: 'مفاتيح المرور',
  intro:
    'يسجّل مفتاح المرور دخولك بقفل شاشة هذا الجهاز أو بمفتاح أمان بدلًا من الرمز. مع مفتاح المرور يطلبه تسجيل الدخول بكلمة المرور أيضًا، ويمكنه كذلك أن يسجّل دخولك وحده.',
  unsupported: 'لا يستطيع هذا المتصفح استخدام مفاتيح المرور.',
  none: 'لا مفاتيح مرور بعد.',
  add: 'إضافة مفتاح مرور',
  name: 'الاسم (اختياري)',
  namePlaceholder: 'مثلًا: حاسوب العمل',
  password: 'كلمة المرور الحالية',
  passwordHelp: 'كلمة مرورك أولًا، ثم يطلب متصفحك مفتاح المرور.',
  create: 'متابعة',
  cancel: 'إلغاء',
  added: (name: string) => `أُضيف مفتاح المرور «${name}».`,
  cancelled: 'لم يُنشأ مفتاح مرور (أُلغي أو انتهت المهلة).',
  created: 'أُضيف في',
  lastUsed: 'آخر استخدام',
  never: 'لم يُستخدم',
  remove: 'إزالة',
  removeLabel: (name: string) => `إزالة مفتاح المرور «${name}»`,
  removeQuestion: (name: string) => `إزالة مفتاح المرور «${name}»؟ لن يسجّل دخولك بعد الآن. أدخل كلمة مرورك للتأكيد.`,
  confirmRemove: 'نعم، أزله',
  removed: (name: string) => `أُزيل مفتاح المرور «${name}».`,
};
const strings = { en, ar };

/** A person's passkeys (operations.md §15): the list, adding one (the password first), removing one (the password again). */
export function PasskeysSection() {
  const p = useStrings(strings);
  const [list, reload] = useLoad(() => api.GET('/api/me/passkeys'));
  const [adding, setAdding] = useState(false);
  const [status, setStatus] = useState('');
  const supported = browserSupportsWebAuthn();
  const done = (message: string) => {
    setStatus(message);
    setAdding(false);
    reload();
    // A passkey is a second factor: a workspace that requires one may let this person in now, or no longer.
    meChanged();
  };
  return (
    <section aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">{p.title}</h2>
      <p>{p.intro}</p>
      <Loaded state={list} retry={reload}>
        {(passkeys) => (
          <>
            {passkeys.length === 0 ? (
              <Empty>{p.none}</Empty>
            ) : (
              <ul class="items">
                {passkeys.map((passkey) => (
                  <PasskeyItem key={passkey.id} passkey={passkey} onRemoved={() => done(p.removed(passkey.name))} />
                ))}
              </ul>
            )}
          </>
        )}
      </Loaded>
      <p role="status" class="status">
        {status}
      </p>
      {!supported ? (
        <p>{p.unsupported}</p>
      ) : adding ? (
        <AddForm onCancel={() => setAdding(false)} onAdded={(name) => done(p.added(name))} />
      ) : (
        <div class="actions">
          <button
            type="button"
            onClick={() => {
              setStatus('');
              setAdding(true);
            }}
          >
            {p.add}
          </button>
        </div>
      )}
    </section>
  );
}

function PasskeyItem({ passkey, onRemoved }: { passkey: Passkey; onRemoved: () => void }) {
  const p = useStrings(strings);
  const date = useDate();
  const [asking, setAsking] = useState(false);
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  const openRef = useRef<HTMLButtonElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (asking) passwordRef.current?.focus();
  }, [asking]);
  const submit = async (e: Event) => {
    e.preventDefault();
    const ok = await run(() => api.DELETE('/api/me/passkeys/{id}', { params: { path: { id: passkey.id } }, body: { password } }));
    if (ok) onRemoved();
  };
  return (
    <li class="item">
      <div class="item-main">
        <span class="title">{passkey.name}</span>
        <dl class="meta">
          <div>
            <dt>{p.created}</dt>
            <dd>{date(passkey.createdAt)}</dd>
          </div>
          <div>
            <dt>{p.lastUsed}</dt>
            <dd>{passkey.lastUsedAt ? date(passkey.lastUsedAt) : p.never}</dd>
          </div>
        </dl>
        {asking && (
          <form class="stack-tight" onSubmit={submit} aria-label={p.removeLabel(passkey.name)}>
            <p>{p.removeQuestion(passkey.name)}</p>
            <label class="field">
              <span>{p.password}</span>
              <input
                type="password"
                autocomplete="current-password"
                required
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
                ref={passwordRef}
              />
            </label>
            <ErrorLine error={error} />
            <div class="actions">
              <button type="submit" class="danger-solid" disabled={busy}>
                {p.confirmRemove}
              </button>
              <button
                type="button"
                onClick={() => {
                  setAsking(false);
                  setPassword('');
                  openRef.current?.focus();
                }}
              >
                {p.cancel}
              </button>
            </div>
          </form>
        )}
      </div>
      {!asking && (
        <div class="item-actions">
          <button type="button" class="danger" ref={openRef} aria-label={p.removeLabel(passkey.name)} onClick={() => setAsking(true)}>
            {p.remove}
          </button>
        </div>
      )}
    </li>
  );
}

/** The password, then the browser's own passkey dialog (startRegistration), then the server's check. */
function AddForm({ onCancel, onAdded }: { onCancel: () => void; onAdded: (name: string) => void }) {
  const p = useStrings(strings);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [cancelled, setCancelled] = useState(false);
  const { busy, error, run } = useAction();
  const nameRef = useRef<HTMLInputElement>(null);
  useEffect(() => nameRef.current?.focus(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    setCancelled(false);
    const options = await run(() => api.POST('/api/me/passkeys/options', { body: { password } }));
    if (!options) return;
    let response;
    try {
      response = await startRegistration({ optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON });
    } catch {
      // The person closed the browser's dialog, or it timed out: nothing was made.
      setCancelled(true);
      return;
    }
    const trimmed = name.trim();
    const added = await run(() => api.POST('/api/me/passkeys', { body: { response: response as never, ...(trimmed ? { name: trimmed } : {}) } }));
    if (added) onAdded(added.name);
  };
  return (
    <form class="card-inline stack-tight" onSubmit={submit} aria-labelledby="passkey-add-heading">
      <h3 id="passkey-add-heading">{p.add}</h3>
      <label class="field">
        <span>{p.name}</span>
        <input name="passkeyName" maxLength={100} placeholder={p.namePlaceholder} value={name} onInput={(e) => setName(e.currentTarget.value)} ref={nameRef} />
      </label>
      <label class="field">
        <span>{p.password}</span>
        <input
          name="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
          aria-describedby="passkey-password-help"
        />
        <span id="passkey-password-help" class="hint">
          {p.passwordHelp}
        </span>
      </label>
      <ErrorLine error={error} />
      {cancelled && (
        <p role="alert" class="error">
          {p.cancelled}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {p.create}
        </button>
        <button type="button" onClick={onCancel}>
          {p.cancel}
        </button>
      </div>
    </form>
  );
}
