/**
 * A searchable time-zone picker: a combobox (WAI-ARIA 1.2 pattern, list autocomplete) over every
 * zone the browser knows, with its current UTC offset, the browser's own zone first. Type to
 * filter ("kolk" → Asia/Kolkata); ↓/↑ move, Enter chooses, Escape closes (a second one restores
 * the chosen zone's name); leaving the field without choosing keeps the zone chosen before.
 */
import { useEffect, useId, useMemo, useRef, useState } from 'preact/hooks';
import { useStrings } from '../i18n/index.js';
import { strings } from './strings.js';
import { browserZone, matchZones, zoneList, type Zone } from './time-zones.js';

interface Props {
  label: string;
  value: string;
  onChange: (zone: string) => void;
  /** The field's look (its container's class); default "field". */
  class?: string;
}

export function TimeZonePicker({ label, value, onChange, class: look = 'field' }: Props) {
  const s = useStrings(strings);
  const id = useId();
  const [text, setText] = useState(value);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const listRef = useRef<HTMLUListElement>(null);
  // The list (about 420 offsets to compute) is made the first time it opens, not on page load.
  const [zones, setZones] = useState<Zone[] | null>(null);
  const shown = useMemo(() => (zones ? matchZones(zones, text === value ? '' : text) : []), [zones, text, value]);
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    listRef.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [active, open]);

  const show = () => {
    if (!zones) setZones(zoneList(value));
    setOpen(true);
  };
  const choose = (zone: Zone | undefined) => {
    if (!zone) return;
    setOpen(false);
    setText(zone.name);
    if (zone.name !== value) onChange(zone.name);
  };
  const move = (by: number) => {
    if (!open) return show();
    setActive((a) => Math.min(Math.max(a + by, 0), shown.length - 1));
  };

  function onKeyDown(e: KeyboardEvent) {
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(1),
      ArrowUp: () => move(-1),
      Home: () => open && setActive(0),
      End: () => open && setActive(shown.length - 1),
      Enter: () => open && choose(shown[active]),
      Escape: () => (open ? setOpen(false) : setText(value)),
    };
    const act = keys[e.key];
    // Home/End move the caret while the list is closed, Enter submits the form, and Escape
    // with nothing to undo is left to what is around (a dialog closes).
    if (!act || (!open && ['Home', 'End', 'Enter'].includes(e.key))) return;
    if (e.key === 'Escape' && !open && text === value) return;
    e.preventDefault();
    e.stopPropagation();
    act();
  }

  const optionId = (i: number) => `${id}-option-${i}`;
  const browser = browserZone();
  return (
    <div class={`${look} tz-picker`}>
      <label id={`${id}-label`} for={`${id}-input`}>
        {label}
      </label>
      <div class="tz-box">
        <input
          id={`${id}-input`}
          type="text"
          role="combobox"
          dir="ltr"
          autoComplete="off"
          spellcheck={false}
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={`${id}-list`}
          aria-activedescendant={open && shown[active] ? optionId(active) : undefined}
          value={text}
          onInput={(e) => {
            setText(e.currentTarget.value);
            setActive(0);
            show();
          }}
          // The chosen zone's name is selected, so what is typed replaces it (a click would leave a caret in it).
          onFocus={(e) => e.currentTarget.select()}
          onClick={(e) => {
            if (text === value) e.currentTarget.select();
            show();
          }}
          onKeyDown={onKeyDown}
          onBlur={() => {
            setOpen(false);
            setText(value);
          }}
        />
        {/* Only while open: a closed list is not a second element named by the label. */}
        {open && (
          <ul id={`${id}-list`} ref={listRef} role="listbox" aria-labelledby={`${id}-label`} class="tz-list">
            {shown.length === 0 && <li class="tz-none">{s.noZone}</li>}
            {shown.map((z, i) => (
              <li
                key={z.name}
                id={optionId(i)}
                data-index={i}
                role="option"
                aria-selected={i === active}
                class={z.name === value ? 'tz-current' : undefined}
                // mousedown, not click: the input keeps the focus (its blur would close the list first).
                onMouseDown={(e) => {
                  e.preventDefault();
                  choose(z);
                }}
              >
                <span dir="ltr">{z.name}</span>
                <span class="tz-offset">
                  {z.name === browser && `${s.yourZone} · `}
                  <bdi dir="ltr">{z.offset}</bdi>
                </span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
