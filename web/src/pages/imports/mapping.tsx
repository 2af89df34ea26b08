import { useId } from 'preact/hooks';
import { useStrings } from '../../i18n/index.js';
import { strings } from './strings.js';

interface Props {
  fields: string[];
  columns: string[];
  /** What each field reads now (the preview's mapping with the person's changes). */
  mapping: Record<string, string>;
  /** The fields the person changed (the others read what the source guessed). */
  changed: Record<string, string>;
  onChange: (field: string, column: string) => void;
}

/** One select per field of ours, listing the file's columns. */
export function MappingEditor({ fields, columns, mapping, changed, onChange }: Props) {
  const s = useStrings(strings);
  const id = useId();
  return (
    <section class="stack-tight" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{s.mappingTitle}</h2>
      <p class="hint">{s.mappingHelp}</p>
      <div class="imp-mapping">
        {fields.map((field) => (
          <div class="field" key={field}>
            <label for={`${id}-field-${field}`}>{s.fields[field] ?? field}</label>
            <select id={`${id}-field-${field}`} name={`mapping.${field}`} value={mapping[field] ?? ''} onChange={(e) => onChange(field, e.currentTarget.value)}>
              {/* A column the source found cannot be turned off (the API's mapping only names columns); a changed one goes back to the guess. */}
              <option value="" disabled={!!mapping[field] && !(field in changed)}>
                {s.notRead}
              </option>
              {/* A column name in its own direction: in Arabic a long Latin name keeps its start and loses its end to the ellipsis. */}
              {columns.map((c) => (
                <option key={c} value={c} dir="auto">
                  {c}
                </option>
              ))}
            </select>
          </div>
        ))}
      </div>
    </section>
  );
}
