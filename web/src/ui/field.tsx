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
