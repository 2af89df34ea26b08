import type { ComponentChildren } from 'preact';

interface Region {
  /** The page's scrolling box (links-scroll, conv-scroll, lt-scroll). */
  class: string;
  label?: string;
  labelledBy?: string;
  /** Rows being replaced (aria-busy); left out when the table never reloads in place. */
  busy?: boolean;
}

interface Props {
  /** Added to the shared `table` class (links-table, conv-table…). */
  class?: string;
  /** The column headings, in order. */
  columns: ComponentChildren[];
  /**
   * A table wider than the screen scrolls inside a named region that the keyboard can reach
   * (tabIndex 0), so the page itself never scrolls sideways.
   */
  region?: Region;
  /** The body's rows. */
  children: ComponentChildren;
}

/** The dashboard's data table: one heading row of column headings, then the rows. */
export function Table({ class: look, columns, region, children }: Props) {
  const table = (
    <table class={look ? `table ${look}` : 'table'}>
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={i} scope="col">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
  if (!region) return table;
  return (
    <div class={region.class} role="region" tabIndex={0} aria-label={region.label} aria-labelledby={region.labelledBy} aria-busy={region.busy}>
      {table}
    </div>
  );
}
