/** What a program page shows before the workspace has a program: the way to make one. */
import { onLinkClick } from '../../router.js';
import type { ProgramStrings } from './strings.js';

export function NoProgram({ s }: { s: ProgramStrings }) {
  return (
    <p>
      {s.needProgram}
      <a href="/app/program" onClick={onLinkClick}>
        {s.toProgram}
      </a>
    </p>
  );
}
