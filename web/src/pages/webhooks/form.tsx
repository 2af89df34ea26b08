import { useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import type { Scope } from '../../session.js';
import { ErrorLine } from '../../ui/states.js';
import { useAction } from '../../ui/action.js';
import { strings } from './strings.js';
import { EVENT_SCOPES, EVENT_TYPES, type Endpoint, type Subscribable } from './types.js';

interface Props {
  /** The endpoint changed (PATCH); none: a new one (POST). */
  endpoint?: Endpoint;
  /** The scopes the person holds here: an event whose data they may not read is offered but not choosable. */
  scopes: readonly Scope[];
  onCancel: () => void;
  /** Saved; a new endpoint comes with its secret, shown once. */
  onSaved: (saved: { endpoint: Endpoint; secret?: string }) => void;
}

/** An endpoint's address, description and events (each with the read scopes it needs). */
export function EndpointForm({ endpoint, scopes, onCancel, onSaved }: Props) {
  const w = useStrings(strings);
  const id = useId();
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [events, setEvents] = useState<Subscribable[]>((endpoint?.events ?? []).filter((e): e is Subscribable => e in EVENT_SCOPES));
  const { busy, error, run } = useAction();
  const [own, setOwn] = useState<string>();
  const urlRef = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => urlRef.current?.focus(), []);
  const readable = (type: Subscribable) => EVENT_SCOPES[type].every((x) => scopes.includes(x));

  const submit = async (e: Event) => {
    e.preventDefault();
    setOwn(undefined);
    if (events.length === 0) return setOwn(w.pickEvent);
    const body = { url: url.trim(), events, description: description.trim() || undefined };
    if (endpoint) {
      const saved = await run(() =>
        api.PATCH('/api/webhooks/{id}', { params: { path: { id: endpoint.id } }, body: { ...body, description: description.trim() || null } }),
      );
      if (saved) onSaved({ endpoint: saved });
    } else {
      const made = await run(() => api.POST('/api/webhooks', { body }));
      if (made) onSaved({ endpoint: made, secret: made.secret });
    }
  };
  const title = endpoint ? w.editTitle : w.newEndpoint;
  return (
    <form class="stack-tight card-inline" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      {/* for/id, the hint outside the label: a field's name is its label alone, the hint its description. */}
      <div class="field">
        <label for={`${id}-url`}>{w.url}</label>
        <input
          id={`${id}-url`}
          ref={urlRef}
          name="url"
          type="url"
          required
          maxLength={2048}
          dir="ltr"
          placeholder="https://"
          aria-describedby={`${id}-url-help`}
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
        <span id={`${id}-url-help`} class="hint">
          {w.urlHelp}
        </span>
      </div>
      <div class="field">
        <label for={`${id}-description`}>{w.description}</label>
        <input
          id={`${id}-description`}
          name="description"
          maxLength={500}
          aria-describedby={`${id}-description-help`}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
        <span id={`${id}-description-help`} class="hint">
          {w.descriptionHelp}
        </span>
      </div>
      <fieldset class="scopes wh-events">
        <legend>{w.events}</legend>
        <p class="muted">{w.eventsHelp}</p>
        <ul>
          {EVENT_TYPES.map((type) => (
            <li key={type}>
              <label>
                <input
                  type="checkbox"
                  name="events"
                  value={type}
                  disabled={!readable(type)}
                  checked={events.includes(type)}
                  onChange={(e) => setEvents(e.currentTarget.checked ? [...events, type] : events.filter((x) => x !== type))}
                />
                <span>
                  <code>{type}</code> <span class="scope-words">{w.eventWords[type]}</span>{' '}
                  <span class="endpoints">{w.needs(EVENT_SCOPES[type].join(', '))}</span>
                </span>
              </label>
            </li>
          ))}
        </ul>
      </fieldset>
      <ErrorLine error={own ?? error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {endpoint ? w.save : w.create}
        </button>
        <button type="button" onClick={onCancel}>
          {w.cancel}
        </button>
      </div>
    </form>
  );
}
