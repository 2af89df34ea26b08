import { useContext, useEffect, useState } from 'preact/hooks';
import { errorText } from '../../api/client.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import { listLogos, logoDataUrl, uploadLogo, type Logo } from './qr-calls.js';
import { MAX_LOGO_BYTES } from './qr-design.js';
import { qrStrings } from './qr-strings.js';

type Note = { kind: 'status' | 'alert'; text: string } | undefined;

/** The workspace's logos as radio buttons (none first), with an upload (`canUpload`) that adds one and picks it. */
export function LogoPicker({ value, canUpload, onChange }: { value: string | null; canUpload: boolean; onChange: (id: string | null) => void }) {
  const s = useStrings(qrStrings);
  const { lang } = useContext(LangContext);
  const [logos, setLogos] = useState<Logo[]>([]);
  const [images, setImages] = useState<Record<string, string>>({});
  const [note, setNote] = useState<Note>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    listLogos().then(setLogos, (e: unknown) => setNote({ kind: 'alert', text: s.logosFailed + errorText(e, lang) }));
  }, []);
  useEffect(() => {
    for (const logo of logos) {
      if (images[logo.id]) continue;
      // A thumbnail that fails to load leaves its radio button with its name only.
      logoDataUrl(logo.id).then(
        (url) => setImages((m) => ({ ...m, [logo.id]: url })),
        () => undefined,
      );
    }
  }, [logos]);

  async function upload(e: Event) {
    const input = e.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    if (!file) return;
    if (file.size > MAX_LOGO_BYTES) {
      input.value = '';
      return setNote({ kind: 'alert', text: s.tooBig(Math.ceil(file.size / 1024)) });
    }
    setBusy(true);
    setNote({ kind: 'status', text: s.uploading });
    try {
      const logo = await uploadLogo(file);
      setLogos((list) => [logo, ...list]);
      onChange(logo.id);
      setNote({ kind: 'status', text: s.uploaded });
    } catch (err) {
      setNote({ kind: 'alert', text: errorText(err, lang) });
    } finally {
      input.value = '';
      setBusy(false);
    }
  }

  return (
    <fieldset class="qr-logos">
      <legend>{s.logo}</legend>
      <div class="qr-logo-list">
        <label class="qr-logo">
          <input type="radio" name="logo" checked={value === null} onChange={() => onChange(null)} />
          <span>{s.noLogo}</span>
        </label>
        {logos.map((logo, i) => (
          <label class="qr-logo" key={logo.id}>
            <input type="radio" name="logo" value={logo.id} checked={value === logo.id} onChange={() => onChange(logo.id)} />
            {images[logo.id] ? <img src={images[logo.id]} alt="" width={40} height={40} /> : <span class="qr-logo-blank" />}
            <span>{s.logoName(logos.length - i, logo.source === 'svg' ? s.fromSvg : s.fromPng)}</span>
          </label>
        ))}
      </div>
      {canUpload && (
        <label class="field">
          <span>{s.upload}</span>
          <input type="file" name="logoFile" accept="image/png,image/svg+xml,.png,.svg" disabled={busy} onChange={upload} />
        </label>
      )}
      <p role="status" class="muted">
        {note?.kind === 'status' ? note.text : ''}
      </p>
      {note?.kind === 'alert' && (
        <p role="alert" class="error">
          {note.text}
        </p>
      )}
    </fieldset>
  );
}
