import { useId } from 'preact/hooks';
import { useStrings } from '../../i18n/index.js';
import { strings } from './strings.js';

interface Props {
  /** The names of the workspace's collections (offered as the field's suggestions). */
  collections: string[];
  collection: string;
  /** The file has no collection column: a collection must be given. */
  required: boolean;
  /** The person tried to start without one. */
  missing: boolean;
  upgradeHttp: boolean;
  onCollection: (name: string) => void;
  onUpgradeHttp: (on: boolean) => void;
}

/** The collection for rows that name none (an existing one or a new name) and the http upgrade. */
export function ImportOptions({ collections, collection, required, missing, upgradeHttp, onCollection, onUpgradeHttp }: Props) {
  const s = useStrings(strings);
  const id = useId();
  const name = collection.trim();
  const isNew = name !== '' && !collections.some((c) => c.toLowerCase() === name.toLowerCase());
  const described = [`${id}-help`, isNew && `${id}-new`, missing && `${id}-missing`].filter(Boolean).join(' ');
  return (
    <section class="stack-tight" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{s.optionsTitle}</h2>
      <div class="field">
        <label for={`${id}-collection`}>{s.collectionLabel}</label>
        <input
          id={`${id}-collection`}
          name="collection"
          list={`${id}-collections`}
          autocomplete="off"
          maxLength={190}
          required={required}
          aria-invalid={missing || undefined}
          aria-describedby={described}
          value={collection}
          onInput={(e) => onCollection(e.currentTarget.value)}
        />
        <datalist id={`${id}-collections`}>
          {collections.map((c) => (
            <option key={c} value={c} />
          ))}
        </datalist>
        <span id={`${id}-help`} class="hint">
          {required ? s.collectionHelpRequired : s.collectionHelpOptional}
        </span>
        {isNew && (
          <span id={`${id}-new`} class="hint">
            {s.collectionNew(name)}
          </span>
        )}
        {missing && (
          <span id={`${id}-missing`} class="error" role="alert">
            {s.collectionRequired}
          </span>
        )}
      </div>
      <div class="choice">
        <label>
          <input
            type="checkbox"
            name="upgradeHttp"
            checked={upgradeHttp}
            aria-describedby={`${id}-upgrade-help`}
            onChange={(e) => onUpgradeHttp(e.currentTarget.checked)}
          />
          <span>{s.upgradeHttp}</span>
        </label>
        <span id={`${id}-upgrade-help`} class="hint">
          {s.upgradeHttpHelp}
        </span>
      </div>
    </section>
  );
}
