import { useId } from 'preact/hooks';

/** An optional https address with its label and a hint under it (the hint is the field's description). */
export function UrlField({
  name,
  label,
  help,
  value,
  onInput,
}: {
  name: string;
  label: string;
  help: string;
  value: string;
  onInput: (value: string) => void;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        type="url"
        maxLength={4096}
        dir="ltr"
        placeholder="https://"
        aria-describedby={`${id}-help`}
        value={value}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
      <span id={`${id}-help`} class="hint">
        {help}
      </span>
    </div>
  );
}
