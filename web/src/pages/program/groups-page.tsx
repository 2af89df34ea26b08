/**
 * Partner program → Groups and rewards: each group with its rewards written as sentences, in
 * the order they are tried (first match wins); rewards added, changed, moved and removed (the
 * group's whole list is written with PUT /api/partner-groups); groups added, renamed, deleted
 * (never `default`).
 */
import { useRef, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useLang, useStrings } from '../../i18n/index.js';
import type { PageProps } from '../../session.js';
import { ConfirmButton } from '../../ui/confirm.js';
import { Empty, ErrorLine, LoadFailure, Loading, useLoad } from '../../ui/states.js';
import { useAction } from '../../ui/action.js';
import { RewardForm } from './reward-form.js';
import { rewardSentence, type Reward } from './reward-sentence.js';
import { NoProgram } from './no-program.js';
import { strings } from './strings.js';
import { isNoProgram, type PartnerGroup } from './types.js';
import '../settings/settings.css';
import './program.css';

export function GroupsPage({ workspace }: PageProps) {
  const s = useStrings(strings);
  const [program, reloadProgram] = useLoad(() => api.GET('/api/program'));
  const [groups, reloadGroups] = useLoad(() => api.GET('/api/partner-groups'));
  const [done, setDone] = useState<string>();
  const writable = workspace.scopes.includes('programsWrite');
  if (program.kind === 'error' && isNoProgram(program.error)) return <NoProgram s={s} />;
  if (program.kind === 'error') return <LoadFailure error={program.error} retry={reloadProgram} />;
  if (groups.kind === 'error') return <LoadFailure error={groups.error} retry={reloadGroups} />;
  if (program.kind === 'loading' || groups.kind === 'loading') return <Loading />;
  const changed = (message: string) => {
    setDone(message);
    reloadGroups();
  };
  return (
    <div class="program stack">
      <p class="program-intro">{s.groupsIntro}</p>
      {!writable && <p class="hint">{s.groupsReadOnly}</p>}
      <p role="status" class="status program-status">
        {done}
      </p>
      {groups.data.map((g) => (
        <GroupCard key={g.id} group={g} currency={program.data.currency} writable={writable} onChanged={changed} />
      ))}
      {writable && <NewGroup onAdded={(name) => changed(s.groupAdded(name))} />}
    </div>
  );
}

function NewGroup({ onAdded }: { onAdded: (name: string) => void }) {
  const s = useStrings(strings);
  const [name, setName] = useState('');
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const made = await run(() => api.POST('/api/partner-groups', { body: [{ name: name.trim() }] }));
    if (made) {
      setName('');
      onAdded(made[0]?.name ?? name.trim());
    }
  };
  return (
    <form class="card-inline stack-tight program-new-group" onSubmit={submit} aria-labelledby="program-new-group">
      <h2 id="program-new-group">{s.newGroup}</h2>
      <div class="field">
        <label for="program-group-name">{s.groupName}</label>
        <input id="program-group-name" name="name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {s.addGroup}
        </button>
      </div>
    </form>
  );
}

interface CardProps {
  group: PartnerGroup;
  currency: string;
  writable: boolean;
  onChanged: (message: string) => void;
}

/** Which reward the dialog changes: an index, or a new one (-1). */
type Editing = number | null;

function GroupCard({ group: g, currency, writable, onChanged }: CardProps) {
  const s = useStrings(strings);
  const lang = useLang();
  const headingId = `group-${g.id}`;
  const isDefault = g.name === 'default';
  const [editing, setEditing] = useState<Editing>(null);
  const [renaming, setRenaming] = useState(false);
  const { busy, error, run } = useAction();
  // The dialog's own refusal (shown in it); a move's or removal's shows under the list.
  const [dialogError, setDialogError] = useState<unknown>();
  const [dialogBusy, setDialogBusy] = useState(false);
  const listRef = useRef<HTMLOListElement>(null);

  const write = (rewards: Reward[]) => api.PUT('/api/partner-groups', { body: [{ id: g.id, rewards }] });
  const saveList = async (rewards: Reward[], focus?: string) => {
    if (await run(() => write(rewards))) {
      onChanged(s.rewardSaved);
      if (focus) setTimeout(() => listRef.current?.querySelector<HTMLElement>(focus)?.focus(), 50);
    }
  };
  const move = (i: number, by: -1 | 1) => {
    const next = [...g.rewards];
    [next[i], next[i + by]] = [next[i + by]!, next[i]!];
    void saveList(next, `[data-move="${i + by}-${by < 0 ? 'up' : 'down'}"]`);
  };
  const saveReward = async (reward: Reward) => {
    const next = editing === -1 || editing === null ? [...g.rewards, reward] : g.rewards.map((r, j) => (j === editing ? reward : r));
    setDialogBusy(true);
    setDialogError(undefined);
    try {
      const { error: failed } = await write(next);
      if (failed !== undefined) return setDialogError(failed);
      setEditing(null);
      onChanged(s.rewardSaved);
    } catch (err) {
      setDialogError(err);
    } finally {
      setDialogBusy(false);
    }
  };

  return (
    <section class="card-inline stack-tight program-group" aria-labelledby={headingId}>
      <div class="program-group-head">
        <h2 id={headingId}>{g.name}</h2>
        {writable && !isDefault && !renaming && (
          <div class="actions">
            <button type="button" aria-label={s.renameGroup(g.name)} onClick={() => setRenaming(true)}>
              {s.rename}
            </button>
            <ConfirmButton
              label={s.deleteGroup}
              accessibleName={s.deleteGroupNamed(g.name)}
              question={s.deleteQuestion(g.name)}
              confirm={s.confirmDelete}
              onConfirm={async () => {
                if (await run(() => api.DELETE('/api/partner-groups', { body: [g.id] }))) onChanged(s.deleted(g.name));
              }}
            />
          </div>
        )}
      </div>
      {isDefault && <p class="hint">{s.defaultNote}</p>}
      {renaming && (
        <Rename
          group={g}
          onDone={(name) => {
            setRenaming(false);
            if (name) onChanged(s.renamed(name));
          }}
        />
      )}
      {g.rewards.length === 0 ? (
        <Empty>{s.noRewards}</Empty>
      ) : (
        <ol class="program-rewards" ref={listRef} aria-label={s.rewardsOf(g.name)}>
          {g.rewards.map((r, i) => (
            <li key={i} class="program-reward">
              <span class="reward-sentence">{rewardSentence(lang, r, currency)}</span>
              {writable && (
                <span class="actions program-reward-actions">
                  <button type="button" data-move={`${i}-up`} disabled={busy || i === 0} aria-label={s.moveUpN(i + 1)} onClick={() => move(i, -1)}>
                    {s.moveUp}
                  </button>
                  <button
                    type="button"
                    data-move={`${i}-down`}
                    disabled={busy || i === g.rewards.length - 1}
                    aria-label={s.moveDownN(i + 1)}
                    onClick={() => move(i, 1)}
                  >
                    {s.moveDown}
                  </button>
                  <button type="button" aria-label={s.editRewardN(i + 1)} onClick={() => setEditing(i)}>
                    {s.editReward}
                  </button>
                  <button
                    type="button"
                    class="danger"
                    disabled={busy}
                    aria-label={s.removeRewardN(i + 1)}
                    onClick={() => saveList(g.rewards.filter((_, j) => j !== i))}
                  >
                    {s.removeReward}
                  </button>
                </span>
              )}
            </li>
          ))}
        </ol>
      )}
      <ErrorLine error={error} />
      {writable && (
        <div class="actions">
          <button type="button" aria-label={s.addRewardTo(g.name)} onClick={() => setEditing(-1)}>
            {s.addReward}
          </button>
        </div>
      )}
      {editing !== null && (
        <RewardForm
          reward={editing >= 0 ? g.rewards[editing] : undefined}
          currency={currency}
          index={editing >= 0 ? editing : g.rewards.length}
          busy={dialogBusy}
          failure={dialogError}
          onSave={saveReward}
          onClose={() => {
            setEditing(null);
            setDialogError(undefined);
          }}
        />
      )}
    </section>
  );
}

function Rename({ group, onDone }: { group: PartnerGroup; onDone: (name?: string) => void }) {
  const s = useStrings(strings);
  const [name, setName] = useState(group.name);
  const { busy, error, run } = useAction();
  const id = `rename-${group.id}`;
  const submit = async (e: Event) => {
    e.preventDefault();
    const saved = await run(() => api.PUT('/api/partner-groups', { body: [{ id: group.id, name: name.trim() }] }));
    if (saved) onDone(saved[0]?.name ?? name.trim());
  };
  return (
    <form class="stack-tight" onSubmit={submit}>
      <div class="field">
        <label for={id}>{s.groupName}</label>
        <input id={id} name="name" required maxLength={100} value={name} autoFocus onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {s.saveName}
        </button>
        <button type="button" onClick={() => onDone()}>
          {s.cancel}
        </button>
      </div>
    </form>
  );
}
