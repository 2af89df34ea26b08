import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import type { PageProps } from '../../session.js';
import { LoadFailure, Loading, useLoad } from '../../ui/states.js';
import { PayableSummary } from './payable.js';
import { ProgramForm } from './program-form.js';
import { strings } from './strings.js';
import { TopPartners } from './top-partners.js';
import { isNoProgram, mayChangeProgram, type Program } from './types.js';
import '../settings/settings.css';
import './program.css';

/** Partner program → Program: the form that starts one (none yet, 404), else the settings. */
export function ProgramPage(props: PageProps) {
  const s = useStrings(strings);
  const [state, reload] = useLoad(() => api.GET('/api/program'));
  // A program just made or saved here: shown without asking again.
  const [saved, setSaved] = useState<Program>();
  const [done, setDone] = useState<string>();
  const writable = mayChangeProgram(props);
  if (state.kind === 'loading') return <Loading />;
  if (state.kind === 'error' && !isNoProgram(state.error)) return <LoadFailure error={state.error} retry={reload} />;
  const program = saved ?? (state.kind === 'ready' ? state.data : undefined);
  return (
    <div class="settings program stack">
      {!program && <p>{s.noProgram}</p>}
      {!writable && <p class="hint">{s.readOnly}</p>}
      <p role="status" class="status program-status">
        {done}
      </p>
      {program && <PayableSummary />}
      {program && <TopPartners currency={program.currency} />}
      {(program || writable) && (
        <ProgramForm
          key={program?.id ?? 'new'}
          program={program}
          writable={writable}
          onSaved={(made) => {
            setDone(program ? s.saved : s.started(made.name));
            setSaved(made);
          }}
        />
      )}
    </div>
  );
}
