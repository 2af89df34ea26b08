import QRCode from 'qrcode';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import { download } from '../../ui/download.js';
import { CopyButton } from '../../ui/copy.js';
import { ErrorLine, Loaded, useLoad } from '../../ui/states.js';
import { meChanged } from '../../me-changed.js';
import { useAction } from '../../ui/action.js';
import { securityStrings } from './security-strings.js';

/** Enrolment in steps: nothing started, the new secret to scan, the recovery codes to keep. */
type Step = { at: 'idle' } | { at: 'scan'; secret: string; otpauthUrl: string } | { at: 'codes'; codes: string[] };

/**
 * Two-factor sign-in with an authenticator app (POST /api/me/mfa/totp, …/confirm, DELETE) and
 * its recovery codes (POST /api/me/mfa/recovery-codes). Every change tells the app (meChanged):
 * a workspace requiring two-factor opens or closes with it.
 */
export function TwoFactor() {
  const sec = useStrings(securityStrings);
  const [status, reload] = useLoad(() => api.GET('/api/me/mfa'));
  const [step, setStep] = useState<Step>({ at: 'idle' });
  const changed = () => {
    reload();
    meChanged();
  };
  return (
    <section aria-labelledby="mfa-heading">
      <h2 id="mfa-heading">{sec.mfaTitle}</h2>
      {step.at === 'codes' ? (
        <RecoveryCodes
          codes={step.codes}
          onDone={() => {
            setStep({ at: 'idle' });
            reload();
          }}
        />
      ) : step.at === 'scan' ? (
        <Scan
          secret={step.secret}
          otpauthUrl={step.otpauthUrl}
          onCancel={() => setStep({ at: 'idle' })}
          onConfirmed={(codes) => {
            setStep({ at: 'codes', codes });
            changed();
          }}
        />
      ) : (
        <Loaded state={status} retry={reload}>
          {(s) =>
            s.totp ? (
              <On left={s.recoveryCodesLeft} onCodes={(codes) => setStep({ at: 'codes', codes })} onOff={changed} />
            ) : (
              <Off onStarted={(secret, otpauthUrl) => setStep({ at: 'scan', secret, otpauthUrl })} />
            )
          }
        </Loaded>
      )}
    </section>
  );
}

/** A password field of its own id (several forms on the page ask for it). */
function PasswordField({ id, value, onInput }: { id: string; value: string; onInput: (v: string) => void }) {
  const sec = useStrings(securityStrings);
  return (
    <label class="field">
      <span>{sec.password}</span>
      <input id={id} name="password" type="password" autocomplete="current-password" required value={value} onInput={(e) => onInput(e.currentTarget.value)} />
    </label>
  );
}

function Off({ onStarted }: { onStarted: (secret: string, otpauthUrl: string) => void }) {
  const sec = useStrings(securityStrings);
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const started = await run(() => api.POST('/api/me/mfa/totp', { body: { password } }));
    if (started) onStarted(started.secret, started.otpauthUrl);
  };
  return (
    <form class="stack-tight" onSubmit={submit}>
      <p>{sec.mfaOffIntro}</p>
      <PasswordField id="mfa-start-password" value={password} onInput={setPassword} />
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {sec.setUp}
        </button>
      </div>
    </form>
  );
}

/** The QR code of the otpauth URL, drawn here: the secret never leaves the page for an image service. */
function useQrCode(text: string): string | undefined {
  const [src, setSrc] = useState<string>();
  useEffect(() => {
    let live = true;
    void QRCode.toString(text, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' }).then(
      (svg) => live && setSrc(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`),
    );
    return () => {
      live = false;
    };
  }, [text]);
  return src;
}

function Scan({
  secret,
  otpauthUrl,
  onCancel,
  onConfirmed,
}: {
  secret: string;
  otpauthUrl: string;
  onCancel: () => void;
  onConfirmed: (codes: string[]) => void;
}) {
  const sec = useStrings(securityStrings);
  const qr = useQrCode(otpauthUrl);
  const [code, setCode] = useState('');
  const { busy, error, run } = useAction();
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => heading.current?.focus(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const done = await run(() => api.POST('/api/me/mfa/totp/confirm', { body: { code: code.trim() } }));
    if (done) onConfirmed(done.recoveryCodes);
  };
  return (
    <form class="stack-tight" onSubmit={submit}>
      <h3 tabIndex={-1} ref={heading}>
        {sec.scanTitle}
      </h3>
      <p>{sec.scanIntro}</p>
      {qr && <img class="qr-code" src={qr} alt={sec.qrAlt} width={200} height={200} />}
      <label class="field">
        <span>{sec.secretLabel}</span>
        <input class="mono" name="secret" readOnly value={secret} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <div class="actions">
        <CopyButton text={secret} label={sec.secretLabel} announce />
      </div>
      <label class="field">
        <span>{sec.codeLabel}</span>
        <input
          name="code"
          inputMode="numeric"
          autocomplete="one-time-code"
          pattern="[0-9 ]{6,7}"
          required
          value={code}
          onInput={(e) => setCode(e.currentTarget.value)}
          aria-describedby="mfa-code-help"
        />
        <span id="mfa-code-help" class="hint">
          {sec.codeHelp}
        </span>
      </label>
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {sec.turnOn}
        </button>
        <button type="button" onClick={onCancel}>
          {sec.cancel}
        </button>
      </div>
    </form>
  );
}

/** The ten recovery codes, shown once: copy, download, then done. */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const sec = useStrings(securityStrings);
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => ref.current?.focus(), []);
  const text = codes.join('\n') + '\n';
  return (
    <div class="secret card-inline stack-tight" role="region" aria-labelledby="codes-heading" tabIndex={-1} ref={ref}>
      <h3 id="codes-heading">{sec.codesTitle}</h3>
      <p class="warning">
        <strong>{sec.codesIntro}</strong>
      </p>
      <ol class="recovery-codes mono" aria-label={sec.codesTitle}>
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ol>
      <div class="actions">
        <CopyButton text={text} label={sec.copyCodes} announce />
        <button type="button" onClick={() => download(text, 'text/plain', 'linktrail-recovery-codes.txt')}>
          {sec.downloadCodes}
        </button>
        <button type="button" onClick={onDone}>
          {sec.savedThem}
        </button>
      </div>
    </div>
  );
}

function On({ left, onCodes, onOff }: { left: number; onCodes: (codes: string[]) => void; onOff: () => void }) {
  const sec = useStrings(securityStrings);
  return (
    <div class="stack">
      <p>
        <strong>{sec.mfaOnStatus}</strong> {sec.recoveryLeft(left)}
      </p>
      <Regenerate onCodes={onCodes} />
      <TurnOff onOff={onOff} />
    </div>
  );
}

function Regenerate({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const sec = useStrings(securityStrings);
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const made = await run(() => api.POST('/api/me/mfa/recovery-codes', { body: { password } }));
    if (made) onCodes(made.recoveryCodes);
  };
  return (
    <form class="stack-tight" onSubmit={submit} aria-labelledby="regenerate-heading">
      <h3 id="regenerate-heading">{sec.regenerateTitle}</h3>
      <p>{sec.regenerateIntro}</p>
      <PasswordField id="mfa-regenerate-password" value={password} onInput={setPassword} />
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {sec.regenerate}
        </button>
      </div>
    </form>
  );
}

function TurnOff({ onOff }: { onOff: () => void }) {
  const sec = useStrings(securityStrings);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    if (await run(() => api.DELETE('/api/me/mfa/totp', { body: { password, code: code.trim() } }))) onOff();
  };
  return (
    <form class="stack-tight" onSubmit={submit} aria-labelledby="turn-off-heading">
      <h3 id="turn-off-heading">{sec.turnOffTitle}</h3>
      <p>{sec.turnOffIntro}</p>
      <PasswordField id="mfa-off-password" value={password} onInput={setPassword} />
      <label class="field">
        <span>{sec.codeOrRecovery}</span>
        <input name="code" autocomplete="one-time-code" required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
      </label>
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {sec.turnOff}
        </button>
      </div>
    </form>
  );
}
