import { useId } from 'preact/hooks';
import './ui.css';

interface Props {
  label: string;
  name: string;
  type?: 'text' | 'email' | 'password';
  autocomplete?: string;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
}

/** An input inside its label (the label's words first), as the dashboard's forms write a text field. */
export function InputField({ label, type, ...input }: Props) {
  return (
    <label class="field">
      <span>{label}</span>
      <input type={type as 'text' | undefined} {...input} />
    </label>
  );
}

/** A new password's field with the rules under it (8 to 256 characters), for every form that sets one. */
export function NewPasswordField({ label, help, id }: { label: string; help: string; id: string }) {
  return (
    <label class="field">
      <span>{label}</span>
      <input name="password" type="password" autocomplete="new-password" minLength={8} maxLength={256} required aria-describedby={id} />
      <span id={id} class="hint">
        {help}
      </span>
    </label>
  );
}

/**
 * A labelled select. The label holds only its words (a label wrapped around a select would
 * add the chosen option to the select's accessible name).
 */
export function SelectField<V extends string>({
  label,
  name,
  value,
  options,
  onChange,
}: {
  label: string;
  name?: string;
  value: V;
  options: readonly (readonly [V, string])[];
  onChange: (value: V) => void;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} name={name} value={value} onChange={(e) => onChange(e.currentTarget.value as V)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}
