import { useStrings } from '../../i18n/index.js';
import { SelectField } from '../../ui/field.js';
import { strings } from './strings.js';
import { SOURCES, type ImportSource, type Preview } from './types.js';

interface Props {
  preview: Preview;
  chosen: ImportSource | undefined;
  onChoose: (source: ImportSource) => void;
}

/** Which service's export the file was recognised as, and a choice to read it as another. */
export function SourceChoice({ preview, chosen, onChoose }: Props) {
  const s = useStrings(strings);
  const name = s.sources[preview.source as ImportSource] ?? preview.source;
  return (
    <div class="stack-tight imp-source">
      <p role="status">
        <strong>{preview.detected ? s.detected(name) : s.chosen(name)}</strong>
      </p>
      <SelectField
        label={s.source}
        name="source"
        value={chosen ?? (preview.source as ImportSource)}
        options={SOURCES.map((x) => [x, s.sources[x]] as const)}
        onChange={onChoose}
      />
    </div>
  );
}
