import { useMemo, useState } from 'preact/hooks';
import { errorField } from '../../ui/api-error.js';
import { RecordForm, type FormError } from './record-form.js';
import { itemOf, valuesOf, type Resource, type Row, type Values } from './resources.js';
import type { LibraryStrings } from './strings.js';

/** Sends a form, and turns the API's answer into the saved record or an error at its field. */
function useSubmit(send: (item: Values) => Promise<{ data?: Row[]; error?: unknown }>, onDone: (row: Row) => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<FormError>();
  const submit = async (item: Values) => {
    setBusy(true);
    try {
      const { data, error: failed } = await send(item);
      if (failed || !data?.[0]) setError({ field: errorField(failed), error: failed });
      else onDone(data[0]);
    } catch (err) {
      setError({ error: err });
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, submit };
}

interface Props {
  resource: Resource;
  s: LibraryStrings;
  onDone: (row: Row) => void;
  onCancel: () => void;
}

/** A new record: blank fields (no colour for a tag). */
export function CreateForm({ resource, s, onDone, onCancel }: Props) {
  const { busy, error, submit } = useSubmit((values) => resource.create(itemOf(resource.fields, values, false)), onDone);
  const initial = useMemo(() => Object.fromEntries(resource.fields.map((f) => [f.key, f.kind === 'color' ? null : ''])), [resource]);
  return (
    <RecordForm
      id="new"
      s={s}
      fields={resource.fields}
      initial={initial}
      submitLabel={s[resource.kind].create}
      busy={busy}
      error={error}
      onSubmit={submit}
      onCancel={onCancel}
      autoFocus
    />
  );
}

/** A record's fields as they are, to change. */
export function EditForm({ resource, s, row, onDone, onCancel }: Props & { row: Row }) {
  const { busy, error, submit } = useSubmit((values) => resource.update(row.id, itemOf(resource.fields, values, true)), onDone);
  const initial = useMemo(() => valuesOf(resource.fields, row), [row]);
  return (
    <RecordForm
      id={`e${row.id}`}
      s={s}
      fields={resource.fields}
      initial={initial}
      submitLabel={s.save}
      busy={busy}
      error={error}
      onSubmit={submit}
      onCancel={onCancel}
      autoFocus
    />
  );
}
