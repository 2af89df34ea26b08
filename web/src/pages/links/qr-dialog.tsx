import { useStrings } from '../../i18n/index.js';
import { Dialog } from '../../ui/dialog.js';
import type { Link } from './rows.js';
import { strings } from './strings.js';

/** The API's QR image of a link, and its PNG and SVG files. */
export function QrDialog({ link, onClose }: { link: Link; onClose: () => void }) {
  const s = useStrings(strings);
  const url = (format: 'png' | 'svg', size?: number) => {
    const u = new URL(link.qrCode);
    u.searchParams.set('format', format);
    if (size) u.searchParams.set('size', String(size));
    return u.pathname + u.search;
  };
  const file = new URL(link.shortUrl).pathname.slice(1) || 'link';
  return (
    <Dialog class="links-dialog" title={s.qrLabel(link.title || link.shortUrl)} onClose={onClose}>
      <div class="stack links-qr">
        <img src={url('png', 240)} width={240} height={240} alt={s.qrAlt(link.shortUrl)} />
        <div class="links-actions">
          <a href={url('png')} download={`${file}.png`}>
            {s.downloadPng}
          </a>
          <a href={url('svg')} download={`${file}.svg`}>
            {s.downloadSvg}
          </a>
          <button type="button" onClick={onClose}>
            {s.close}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
