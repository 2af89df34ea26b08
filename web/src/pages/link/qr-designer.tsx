/**
 * A link's QR designer (operations.md §14): colours (checked for contrast as the server does),
 * size, margin, error correction and logo, with a live preview drawn by GET /api/qr, PNG and
 * SVG downloads of what is on screen, and Save (PUT /api/links with qrDesign).
 */
import { useContext, useEffect, useState } from 'preact/hooks';
import { errorText } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import { errorField } from '../../ui/api-error.js';
import { saveDesign } from './qr-calls.js';
import { codeUrl, contrastOf, DEFAULT_DESIGN, designBody, fromInput, LOGO_LEVEL, sameDesign, toInput, type Design, type ErrorCorrection } from './qr-design.js';
import { LogoPicker } from './qr-logo-picker.js';
import { qrStrings, type QrStrings } from './qr-strings.js';
import './qr.css';

type Link = components['schemas']['Link'];

const SIZES = [256, 512, 600, 1024, 2048];
const LEVELS: ErrorCorrection[] = ['L', 'M', 'Q', 'H'];
const PREVIEW_PX = 240;

/** `value`, once it has stayed the same for `ms` (the preview waits while a colour is dragged). */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value]);
  return settled;
}

function ContrastNote({ design, s }: { design: Design; s: QrStrings }) {
  const c = contrastOf(design.foreground, design.background);
  const ratio = c.ratio.toFixed(2);
  if (!c.problem) return <p class="muted qr-contrast">{s.contrastOk(ratio)}</p>;
  return (
    <p role="alert" class="error qr-contrast">
      {c.problem === 'low' ? s.contrastLow(ratio) : s.contrastInverted}
    </p>
  );
}

function Preview({ link, design, s }: { link: Link; design: Design; s: QrStrings }) {
  const src = useSettled(codeUrl(link.qrCode, design, 'png', PREVIEW_PX), 250);
  const readable = !contrastOf(design.foreground, design.background).problem;
  const file = new URL(link.shortUrl).pathname.slice(1) || 'link';
  return (
    <figure class="qr-preview">
      {readable ? <img src={src} width={PREVIEW_PX} height={PREVIEW_PX} alt={s.previewAlt(link.shortUrl)} /> : <p class="qr-none">{s.noPreview}</p>}
      <figcaption class="qr-downloads">
        <a href={codeUrl(link.qrCode, design, 'png')} download={`${file}-qr.png`}>
          {s.downloadPng}
        </a>
        <a href={codeUrl(link.qrCode, design, 'svg')} download={`${file}-qr.svg`}>
          {s.downloadSvg}
        </a>
      </figcaption>
    </figure>
  );
}

function ColourField({
  name,
  label,
  value,
  error,
  onChange,
}: {
  name: 'foreground' | 'background';
  label: string;
  value: string;
  error?: string;
  onChange: (hex: string) => void;
}) {
  const id = `qr-${name}`;
  return (
    <div class="field qr-colour">
      <label for={id}>{label}</label>
      <span class="qr-colour-input">
        <input
          type="color"
          id={id}
          name={name}
          value={toInput(value)}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          onInput={(e) => onChange(fromInput(e.currentTarget.value))}
        />
        <code dir="ltr">{toInput(value)}</code>
      </span>
      {error && (
        <span id={`${id}-error`} class="error">
          {error}
        </span>
      )}
    </div>
  );
}

/** `canWrite`: the person may save a design and upload logos (linksWrite); else they design for the downloads only. */
export function QrDesigner({ link, canWrite, onSaved }: { link: Link; canWrite: boolean; onSaved: (link: Link) => void }) {
  const s = useStrings(qrStrings);
  const { lang } = useContext(LangContext);
  const [design, setDesign] = useState<Design>(link.qrDesign);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [note, setNote] = useState<{ kind: 'saved' | 'failed'; text: string }>();
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof Design>(key: K, value: Design[K]) => {
    setDesign((d) => ({ ...d, [key]: value }));
    setErrors({});
    setNote(undefined);
  };
  const dirty = !sameDesign(design, link.qrDesign);
  const reset = () => {
    setDesign(DEFAULT_DESIGN);
    setErrors({});
    setNote(undefined);
  };

  async function save(e: Event) {
    e.preventDefault();
    setBusy(true);
    try {
      const saved = await saveDesign(link.id, designBody(design));
      setDesign(saved.qrDesign);
      onSaved(saved);
      setNote({ kind: 'saved', text: s.saved });
    } catch (err) {
      // `[0].qrDesign.foreground` → the foreground input; anything else above the buttons.
      const field = errorField(err, 0)?.split('.').pop();
      if (field && field in design) setErrors({ [field]: errorText(err, lang) });
      else setNote({ kind: 'failed', text: errorText(err, lang) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="stack qr" aria-labelledby="qr-heading">
      <h2 id="qr-heading">{s.heading}</h2>
      <p class="muted">{s.intro}</p>
      <div class="qr-body">
        <Preview link={link} design={design} s={s} />
        <form class="stack qr-form" onSubmit={save} noValidate>
          <div class="qr-row">
            <ColourField name="foreground" label={s.foreground} value={design.foreground} error={errors.foreground} onChange={(v) => set('foreground', v)} />
            <ColourField name="background" label={s.background} value={design.background} error={errors.background} onChange={(v) => set('background', v)} />
          </div>
          <ContrastNote design={design} s={s} />
          <div class="qr-row">
            <label class="field">
              <span>{s.size}</span>
              <select name="size" value={String(design.size)} onChange={(e) => set('size', Number(e.currentTarget.value))}>
                {[...new Set([...SIZES, design.size])]
                  .sort((a, b) => a - b)
                  .map((px) => (
                    <option value={String(px)} key={px}>
                      {px} × {px}
                    </option>
                  ))}
              </select>
            </label>
            <div class="field">
              <label for="qr-margin">{s.margin}</label>
              <span class="qr-colour-input">
                <input
                  type="range"
                  id="qr-margin"
                  name="margin"
                  min={0}
                  max={16}
                  value={design.margin}
                  onInput={(e) => set('margin', Number(e.currentTarget.value))}
                />
                <output for="qr-margin">{design.margin}</output>
              </span>
            </div>
          </div>
          <label class="field">
            <span>{s.errorCorrection}</span>
            <select
              name="errorCorrection"
              value={design.logoId ? LOGO_LEVEL : design.errorCorrection}
              disabled={design.logoId !== null}
              aria-describedby={design.logoId ? 'qr-logo-h' : undefined}
              onChange={(e) => set('errorCorrection', e.currentTarget.value as ErrorCorrection)}
            >
              {LEVELS.map((level) => (
                <option value={level} key={level}>
                  {s.levels[level]}
                </option>
              ))}
            </select>
            {design.logoId && (
              <span id="qr-logo-h" class="muted">
                {s.logoForcesH}
              </span>
            )}
            {errors.errorCorrection && <span class="error">{errors.errorCorrection}</span>}
          </label>
          <LogoPicker value={design.logoId} canUpload={canWrite} onChange={(id) => set('logoId', id)} />
          {errors.logoId && <p class="error">{errors.logoId}</p>}
          <div class="qr-actions">
            {canWrite && (
              <button type="submit" disabled={busy || !dirty}>
                {busy ? s.saving : s.save}
              </button>
            )}
            <button type="button" disabled={sameDesign(design, DEFAULT_DESIGN)} onClick={reset}>
              {s.reset}
            </button>
          </div>
          <p role="status" class="muted">
            {note?.kind === 'saved' ? note.text : !canWrite ? s.viewerNote : dirty ? s.unsaved : ''}
          </p>
          {note?.kind === 'failed' && (
            <p role="alert" class="error">
              {note.text}
            </p>
          )}
        </form>
      </div>
    </section>
  );
}
