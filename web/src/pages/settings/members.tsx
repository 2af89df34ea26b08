import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { paths } from '../../api/schema.js';
import { meChanged } from '../../me-changed.js';
import type { PageProps, Role } from '../../session.js';
import { ConfirmButton } from '../../ui/confirm.js';
import { SecretOnce } from '../../ui/secret-once.js';
import { SelectField } from '../../ui/field.js';
import { useAction } from '../../ui/action.js';
import { useDate } from '../../ui/date.js';
import { useSettingsStrings } from './use-strings.js';
import { Empty, ErrorLine, Loaded, useLoad } from '../../ui/states.js';
import './settings.css';

type Member = paths['/api/workspaces/{id}/members']['get']['responses'][200]['content']['application/json'][number];
const ROLES: Role[] = ['owner', 'member', 'viewer'];

/** Members (role, removal) and invitations (create with the link shown once, pending, revoke). */
export function MembersSettings({ workspaceId, me }: PageProps) {
  const s = useSettingsStrings();
  const path = { params: { path: { id: workspaceId } } };
  const [members, reloadMembers] = useLoad(() => api.GET('/api/workspaces/{id}/members', path));
  const [invites, reloadInvites] = useLoad(() => api.GET('/api/workspaces/{id}/invites', path));
  return (
    <div class="settings stack">
      <section aria-labelledby="members-heading">
        <h2 id="members-heading">{s.membersTitle}</h2>
        <p class="hint">{s.roleHelp}</p>
        <Loaded state={members} retry={reloadMembers}>
          {(list) =>
            list.length === 0 ? (
              <Empty>{s.noMembers}</Empty>
            ) : (
              <ul class="items">
                {list.map((m) => (
                  <MemberRow key={m.userId} member={m} workspaceId={workspaceId} self={m.userId === me.user.id} onChanged={reloadMembers} />
                ))}
              </ul>
            )
          }
        </Loaded>
      </section>
      <section aria-labelledby="invites-heading">
        <h2 id="invites-heading">{s.invitesTitle}</h2>
        <p>{s.invitesIntro}</p>
        <InviteForm workspaceId={workspaceId} onCreated={reloadInvites} />
        <h3>{s.pendingTitle}</h3>
        <Loaded state={invites} retry={reloadInvites}>
          {(list) => (list.length === 0 ? <Empty>{s.noInvites}</Empty> : <InviteList invites={list} workspaceId={workspaceId} onChanged={reloadInvites} />)}
        </Loaded>
      </section>
    </div>
  );
}

function MemberRow({ member, workspaceId, self, onChanged }: { member: Member; workspaceId: string; self: boolean; onChanged: () => void }) {
  const s = useSettingsStrings();
  const date = useDate();
  const [role, setRole] = useState<Role>(member.role);
  const { busy, error, run } = useAction();
  const path = { params: { path: { id: workspaceId, userId: member.userId } } };
  const change = async (e: Event) => {
    e.preventDefault();
    if (await run(() => api.PATCH('/api/workspaces/{id}/members/{userId}', { ...path, body: { role } }))) {
      onChanged();
      if (self) meChanged();
    }
  };
  const remove = async () => {
    if (await run(() => api.DELETE('/api/workspaces/{id}/members/{userId}', path))) {
      if (self) meChanged();
      else onChanged();
    }
  };
  return (
    <li class="item">
      <div class="item-main">
        <span class="title">
          {member.name} {self && <span class="badge current">{s.you}</span>}
        </span>
        <span>{member.email}</span>
        <span class="hint">
          {s.created}: {date(member.createdAt)}
        </span>
      </div>
      <div class="item-actions">
        <form class="actions" onSubmit={change}>
          <SelectField label={s.roleFor(member.name)} value={role} onChange={setRole} options={ROLES.map((r) => [r, s.roles[r]] as const)} />
          <button type="submit" disabled={busy || role === member.role}>
            {s.changeRole}
          </button>
        </form>
        <ConfirmButton
          label={self ? s.leave : s.remove}
          accessibleName={self ? undefined : `${s.remove} ${member.name}`}
          question={self ? s.leaveQuestion : s.removeQuestion(member.name)}
          confirm={s.confirmRemove}
          onConfirm={remove}
        />
      </div>
      <ErrorLine error={error} />
    </li>
  );
}

function InviteForm({ workspaceId, onCreated }: { workspaceId: string; onCreated: () => void }) {
  const s = useSettingsStrings();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [created, setCreated] = useState<{ email: string; url: string; mailed: boolean }>();
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const invite = await run(() => api.POST('/api/workspaces/{id}/invites', { params: { path: { id: workspaceId } }, body: { email: email.trim(), role } }));
    if (invite) {
      setCreated({ email: invite.email, url: invite.url, mailed: invite.mailed });
      setEmail('');
      onCreated();
    }
  };
  return (
    <>
      <form class="stack-tight" onSubmit={submit}>
        <label class="field">
          <span>{s.email}</span>
          <input name="email" type="email" required autocomplete="off" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <SelectField label={s.role} name="role" value={role} onChange={setRole} options={ROLES.map((r) => [r, s.roles[r]] as const)} />
        <ErrorLine error={error} />
        <div class="actions">
          <button type="submit" disabled={busy}>
            {s.createInvite}
          </button>
        </div>
      </form>
      {created && (
        <SecretOnce
          title={s.inviteLink}
          intro={created.mailed ? s.inviteMailed(created.email) : s.inviteCreated(created.email)}
          label={s.inviteLink}
          value={created.url}
          onDone={() => setCreated(undefined)}
        />
      )}
    </>
  );
}

type Invite = { id: string; email: string; role: Role; expiresAt: string; createdAt: string };

function InviteList({ invites, workspaceId, onChanged }: { invites: Invite[]; workspaceId: string; onChanged: () => void }) {
  const s = useSettingsStrings();
  const date = useDate();
  const { error, run } = useAction();
  return (
    <>
      <ErrorLine error={error} />
      <ul class="items">
        {invites.map((i) => (
          <li class="item" key={i.id}>
            <div class="item-main">
              <span class="title">{i.email}</span>
              <dl class="meta">
                <div>
                  <dt>{s.role}</dt>
                  <dd>{s.roles[i.role]}</dd>
                </div>
                <div>
                  <dt>{s.expires}</dt>
                  <dd>{date(i.expiresAt)}</dd>
                </div>
              </dl>
            </div>
            <div class="item-actions">
              <ConfirmButton
                label={s.revoke}
                accessibleName={`${s.revoke} ${i.email}`}
                question={s.revokeInviteQuestion(i.email)}
                confirm={s.confirmRevoke}
                onConfirm={async () => {
                  if (await run(() => api.DELETE('/api/workspaces/{id}/invites/{inviteId}', { params: { path: { id: workspaceId, inviteId: i.id } } })))
                    onChanged();
                }}
              />
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}
