import { useContext, useMemo } from 'preact/hooks';
import { LangContext } from '../../i18n/index.js';
import { colorText, Swatch } from './colors.js';
import type { Partner, Resource, Row, Tag } from './resources.js';
import type { LibraryStrings } from './strings.js';

interface Props {
  kind: Resource['kind'];
  row: Row;
  /** How many links it holds (undefined: not known, e.g. without the links read scope). */
  links?: number;
  s: LibraryStrings;
  /** Edit and Delete are for those whose role may write this kind. */
  canWrite: boolean;
  onEdit: () => void;
  onDelete: () => void;
}

/** A record in the list: its name and details, when it was made, and Edit and Delete (named with the record for screen readers). */
export function ResourceRow({ kind, row, links, s, canWrite, onEdit, onDelete }: Props) {
  const { lang } = useContext(LangContext);
  const dates = useMemo(() => new Intl.DateTimeFormat(lang, { dateStyle: 'medium' }), [lang]);
  const number = useMemo(() => new Intl.NumberFormat(lang), [lang]);
  return (
    <li class="lib-row">
      <div class="lib-main">
        <Summary kind={kind} row={row} s={s} />
        <p class="muted lib-meta">
          {links !== undefined && (
            <>
              <span class="lib-count">{s.linkCount(links, number.format(links))}</span>
              {' · '}
            </>
          )}
          {s.created} <time dateTime={row.createdAt}>{dates.format(new Date(row.createdAt))}</time>
        </p>
      </div>
      {canWrite && (
        <div class="lib-buttons">
          <button id={`edit-${row.id}`} type="button" onClick={onEdit}>
            {s.edit}
            <span class="lib-vh"> {row.name}</span>
          </button>
          <button id={`delete-${row.id}`} type="button" class="lib-danger" onClick={onDelete}>
            {s.delete}
            <span class="lib-vh"> {row.name}</span>
          </button>
        </div>
      )}
    </li>
  );
}

/** What a row shows besides its name: a tag's colour (swatch and words), a partner's email and image address, a collection's description. */
function Summary({ kind, row, s }: { kind: Resource['kind']; row: Row; s: LibraryStrings }) {
  if (kind === 'tags') {
    const color = (row as Tag).color;
    return (
      <p class="lib-name">
        <Swatch hex={color} />
        <bdi>{row.name}</bdi>
        <span class="muted lib-color-name">{colorText(s, color)}</span>
      </p>
    );
  }
  const details =
    kind === 'partners'
      ? [(row as Partner).email, (row as Partner).image].filter((v): v is string => !!v)
      : [(row as { description: string | null }).description].filter((v): v is string => !!v);
  return (
    <>
      <p class="lib-name">
        <bdi>{row.name}</bdi>
      </p>
      {details.map((d) => (
        <p key={d} class="lib-detail">
          <bdi>{d}</bdi>
        </p>
      ))}
    </>
  );
}
