/**
 * A reward, new or changed, in a dialog: what it pays for, a fixed amount (in the program
 * currency's major unit) or a percentage of the sale, for how long or how many a day, and its
 * conditions; the sentence it makes is shown as it is typed.
 */
import { useEffect, useState } from 'preact/hooks';
import { errorText } from '../../api/client.js';
import { useLang, useStrings } from '../../i18n/index.js';
import { errorField } from '../../ui/api-error.js';
import { Dialog } from '../../ui/dialog.js';
import {
  CONDITION_FIELDS,
  CONDITION_OPS,
  emptyCondition,
  emptyRewardDraft,
  rewardDraftOf,
  rewardFieldOf,
  rewardOf,
  type ConditionDraft,
  type RewardDraft,
} from './reward-draft.js';
import { rewardSentence, type Reward } from './reward-sentence.js';
import { strings, type ProgramStrings } from './strings.js';

interface Props {
  reward?: Reward;
  currency: string;
  /** Where the reward is (or will be) in the group's list: the API names its fields by it. */
  index: number;
  busy: boolean;
  /** The API's refusal of the group's rewards (an error body): shown at the field it names, else above the buttons. */
  failure?: unknown;
  onSave: (reward: Reward) => void;
  onClose: () => void;
}

const EVENTS = ['sale', 'lead', 'click'] as const;

function ConditionRow({
  c,
  n,
  s,
  error,
  onChange,
  onRemove,
}: {
  c: ConditionDraft;
  n: number;
  s: ProgramStrings;
  error?: string;
  onChange: (c: ConditionDraft) => void;
  onRemove: () => void;
}) {
  const id = `reward-condition-${n}`;
  return (
    <li>
      <fieldset class="reward-condition" aria-describedby={error ? `${id}-error` : undefined}>
        <legend>{s.conditionN(n)}</legend>
        <div class="reward-condition-fields">
          <div class="field">
            <label for={`${id}-field`}>{s.field}</label>
            <select
              id={`${id}-field`}
              name={`conditions.${n - 1}`}
              value={c.field}
              onChange={(e) => onChange({ ...c, field: e.currentTarget.value as ConditionDraft['field'] })}
            >
              {CONDITION_FIELDS.map((f) => (
                <option key={f} value={f}>
                  {s.fields[f]}
                </option>
              ))}
            </select>
          </div>
          {c.field === 'metadata' && (
            <div class="field">
              <label for={`${id}-key`}>{s.key}</label>
              <input id={`${id}-key`} dir="ltr" maxLength={100} value={c.key} onInput={(e) => onChange({ ...c, key: e.currentTarget.value })} />
            </div>
          )}
          <div class="field">
            <label for={`${id}-op`}>{s.op}</label>
            <select id={`${id}-op`} value={c.op} onChange={(e) => onChange({ ...c, op: e.currentTarget.value as ConditionDraft['op'] })}>
              {CONDITION_OPS.map((op) => (
                <option key={op} value={op}>
                  {s.ops[op]}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for={`${id}-value`}>{s.value}</label>
            <input
              id={`${id}-value`}
              dir="ltr"
              value={c.value}
              aria-invalid={error ? 'true' : undefined}
              aria-describedby={c.op === 'in' ? `${id}-in` : undefined}
              onInput={(e) => onChange({ ...c, value: e.currentTarget.value })}
            />
            {c.op === 'in' && (
              <span id={`${id}-in`} class="hint">
                {s.valueHelpIn}
              </span>
            )}
          </div>
        </div>
        {error && (
          <p id={`${id}-error`} class="error">
            {error}
          </p>
        )}
        <div class="actions">
          <button type="button" onClick={onRemove}>
            {s.removeCondition(n)}
          </button>
        </div>
      </fieldset>
    </li>
  );
}

export function RewardForm({ reward, currency, index, busy, failure, onSave, onClose }: Props) {
  const s = useStrings(strings);
  const lang = useLang();
  const [draft, setDraft] = useState<RewardDraft>(() => (reward ? rewardDraftOf(reward, currency) : emptyRewardDraft()));
  const [problem, setProblem] = useState<{ field: string; text: string }>();
  // A refusal stops showing once the reward is changed (it was about what was sent).
  const [dismissed, setDismissed] = useState<unknown>();
  const set = (change: Partial<RewardDraft>) => {
    setDraft((d) => ({ ...d, ...change }));
    if (failure !== undefined) setDismissed(failure);
  };
  const live = failure !== undefined && failure !== dismissed ? failure : undefined;
  const made = rewardOf(draft, currency);
  const percentage = draft.event === 'sale' && draft.type === 'percentage';
  const apiField = live === undefined ? undefined : rewardFieldOf(errorField(live, 0), index);
  const error = live === undefined ? undefined : errorText(live, lang);
  const fieldError = (name: string) => (problem?.field === name ? problem.text : apiField === name ? error : undefined);
  // A refusal that names a field moves the focus there.
  useEffect(() => {
    if (apiField) document.querySelector<HTMLElement>(`.reward-dialog [name="${apiField}"]`)?.focus();
  }, [failure]);
  const invalid = (name: string) => (fieldError(name) ? { 'aria-invalid': 'true' as const, 'aria-describedby': `reward-${name}-error` } : {});
  const errorLine = (name: string) =>
    fieldError(name) ? (
      <p id={`reward-${name}-error`} class="error">
        {fieldError(name)}
      </p>
    ) : null;

  const submit = (e: Event) => {
    e.preventDefault();
    if ('reward' in made) {
      setProblem(undefined);
      return onSave(made.reward);
    }
    const words = { amount: s.badAmount, percent: s.badPercent, wholeNumber: s.wholeNumber, value: s.badValue, key: s.badKey };
    setProblem({ field: made.field, text: words[made.problem] });
    setTimeout(() => document.querySelector<HTMLElement>(`.reward-dialog [name="${made.field}"]`)?.focus());
  };

  return (
    <Dialog class="reward-dialog" title={reward ? s.editRewardTitle : s.newRewardTitle} onClose={onClose} busy={busy}>
      <form class="stack-tight" onSubmit={submit} noValidate>
        <div class="field">
          <label for="reward-event">{s.event}</label>
          <select id="reward-event" name="event" value={draft.event} onChange={(e) => set({ event: e.currentTarget.value as RewardDraft['event'] })}>
            {EVENTS.map((ev) => (
              <option key={ev} value={ev}>
                {s.events[ev]}
              </option>
            ))}
          </select>
        </div>
        {draft.event === 'sale' && (
          <div class="field">
            <label for="reward-type">{s.type}</label>
            <select id="reward-type" name="type" value={draft.type} onChange={(e) => set({ type: e.currentTarget.value as RewardDraft['type'] })}>
              <option value="percentage">{s.types.percentage}</option>
              <option value="flat">{s.types.flat}</option>
            </select>
          </div>
        )}
        <div class="field">
          <label for="reward-amount">{percentage ? s.percent : s.amountIn(currency)}</label>
          <input
            id="reward-amount"
            name="amount"
            dir="ltr"
            inputMode="decimal"
            value={draft.amount}
            onInput={(e) => set({ amount: e.currentTarget.value })}
            {...invalid('amount')}
            aria-describedby={
              [percentage ? 'reward-amount-help' : '', fieldError('amount') ? 'reward-amount-error' : ''].filter(Boolean).join(' ') || undefined
            }
          />
          {percentage && (
            <span id="reward-amount-help" class="hint">
              {s.percentHelp}
            </span>
          )}
          {errorLine('amount')}
        </div>
        {draft.event === 'sale' && (
          <div class="field">
            <label for="reward-maxDuration">{s.maxDuration}</label>
            <input
              id="reward-maxDuration"
              name="maxDuration"
              inputMode="numeric"
              value={draft.maxDuration}
              onInput={(e) => set({ maxDuration: e.currentTarget.value })}
              {...invalid('maxDuration')}
              aria-describedby={['reward-maxDuration-help', fieldError('maxDuration') ? 'reward-maxDuration-error' : ''].filter(Boolean).join(' ')}
            />
            <span id="reward-maxDuration-help" class="hint">
              {s.maxDurationHelp}
            </span>
            {errorLine('maxDuration')}
          </div>
        )}
        {draft.event === 'click' && (
          <div class="field">
            <label for="reward-maxPerDay">{s.maxPerDay}</label>
            <input
              id="reward-maxPerDay"
              name="maxPerDay"
              inputMode="numeric"
              value={draft.maxPerDay}
              onInput={(e) => set({ maxPerDay: e.currentTarget.value })}
              {...invalid('maxPerDay')}
              aria-describedby={['reward-maxPerDay-help', fieldError('maxPerDay') ? 'reward-maxPerDay-error' : ''].filter(Boolean).join(' ')}
            />
            <span id="reward-maxPerDay-help" class="hint">
              {s.maxPerDayHelp}
            </span>
            {errorLine('maxPerDay')}
          </div>
        )}
        <fieldset class="reward-conditions">
          <legend>{s.conditions}</legend>
          <p class="hint">{s.conditionsHelp}</p>
          {draft.conditions.length > 0 && (
            <ol class="reward-condition-list">
              {draft.conditions.map((c, i) => (
                <ConditionRow
                  key={i}
                  c={c}
                  n={i + 1}
                  s={s}
                  error={fieldError(`conditions.${i}`)}
                  onChange={(next) => set({ conditions: draft.conditions.map((x, j) => (j === i ? next : x)) })}
                  onRemove={() => set({ conditions: draft.conditions.filter((_, j) => j !== i) })}
                />
              ))}
            </ol>
          )}
          <div class="actions">
            <button type="button" onClick={() => set({ conditions: [...draft.conditions, emptyCondition()] })}>
              {s.addCondition}
            </button>
          </div>
        </fieldset>
        {'reward' in made && (
          <p class="reward-preview">
            {s.preview} <strong class="reward-sentence">{rewardSentence(lang, made.reward, currency)}</strong>
          </p>
        )}
        {error && !apiField && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <div class="actions">
          <button type="submit" disabled={busy}>
            {s.saveReward}
          </button>
          <button type="button" onClick={onClose}>
            {s.cancel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
