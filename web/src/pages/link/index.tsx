import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import { useStrings, useT } from '../../i18n/index.js';
import { useDocumentTitle } from '../../ui/document-title.js';
import { onLinkClick } from '../../router.js';
import type { PageProps } from '../../session.js';
import { useFormats } from '../analytics/format.js';
import { AnalyticsView } from '../analytics/view.js';
import { useViewState } from '../analytics/view-state.js';
import { AbTest } from './ab-test.js';
import { LinkEvents } from './events.js';
import { QrDesigner } from './qr-designer.js';
import { strings } from './strings.js';
import './link.css';
import { useCopy } from '../../ui/copy.js';
import { Empty, Loading, LoadFailure } from '../../ui/states.js';

type Link = components['schemas']['Link'];
type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'missing' } | { kind: 'ready'; link: Link };

/** One link: its short URL (with a copy button), destination and title, its analytics, its A/B test, its leads and sales. */
export function LinkPage({ params, workspace }: PageProps) {
  const s = useStrings(strings);
  const f = useFormats();
  const id = params.id ?? '';
  const [view] = useViewState();
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const t = useT();
  // Named after the link (its short URL when untitled); "Links" until it has loaded.
  const heading = state.kind === 'ready' ? (state.link.title ?? state.link.shortUrl) : t.links;
  useDocumentTitle(heading, t.appName);

  useEffect(() => {
    let live = true;
    setState({ kind: 'loading' });
    api.GET('/api/links', { params: { query: { id } } }).then(
      ({ data, error }) => {
        if (!live) return;
        if (error) setState({ kind: 'error', message: errorText(error, f.lang) });
        else setState(data[0] ? { kind: 'ready', link: data[0] } : { kind: 'missing' });
      },
      (e: unknown) => live && setState({ kind: 'error', message: errorText(e, f.lang) }),
    );
    return () => {
      live = false;
    };
  }, [id, attempt]);

  return (
    <div class="stack lk-page">
      <a href="/app/links" onClick={onLinkClick} class="lk-back">
        {s.back}
      </a>
      {state.kind !== 'ready' && <h1>{heading}</h1>}
      {state.kind === 'loading' && <Loading />}
      {state.kind === 'error' && <LoadFailure lead={s.failed} message={state.message} retry={() => setAttempt((n) => n + 1)} />}
      {state.kind === 'missing' && <Empty>{s.missing}</Empty>}
      {state.kind === 'ready' && (
        <>
          <LinkHeader link={state.link} />
          <section class="stack" aria-labelledby="link-analytics">
            <h2 id="link-analytics">{s.analytics}</h2>
            <AnalyticsView linkId={state.link.id} />
          </section>
          <AbTest link={state.link} canWrite={workspace.scopes.includes('linksWrite')} f={f} onLinkChanged={() => setAttempt((n) => n + 1)} />
          <LinkEvents linkId={state.link.id} tz={view.tz} s={s} f={f} />
          <QrDesigner link={state.link} canWrite={workspace.scopes.includes('linksWrite')} onSaved={(link) => setState({ kind: 'ready', link })} />
        </>
      )}
    </div>
  );
}

function LinkHeader({ link }: { link: Link }) {
  const s = useStrings(strings);
  const f = useFormats();
  const { state: copied, copy } = useCopy();
  return (
    <header class="lk-header">
      <h1 class="lk-title">{link.title ?? <bdi dir="ltr">{link.shortUrl}</bdi>}</h1>
      <dl class="lk-facts">
        <div>
          <dt>{s.shortUrl}</dt>
          <dd class="lk-short">
            <a href={link.shortUrl} dir="ltr">
              {link.shortUrl}
            </a>
            <button type="button" onClick={() => void copy(link.shortUrl)} aria-label={s.copyLabel}>
              {s.copy}
            </button>
          </dd>
        </div>
        <div>
          <dt>{s.destination}</dt>
          <dd>
            <a href={link.url} dir="ltr" rel="noreferrer">
              {link.url}
            </a>
          </dd>
        </div>
        <div>
          <dt>{s.created}</dt>
          <dd>
            <time dateTime={String(link.createdAt)}>{f.dateTime(link.createdAt)}</time>
          </dd>
        </div>
      </dl>
      <p role="status" class={copied === 'failed' ? 'error' : 'muted'}>
        {copied === 'copied' ? s.copied : copied === 'failed' ? s.copyFailed : ''}
      </p>
    </header>
  );
}
