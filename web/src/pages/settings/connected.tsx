import { api } from '../../api/client.js';
import type { PageProps } from '../../session.js';
import { ConfirmButton } from '../../ui/confirm.js';
import { ScopeList } from './scopes.js';
import { useAction } from '../../ui/action.js';
import { useDate } from '../../ui/date.js';
import { useSettingsStrings } from './use-strings.js';
import { Empty, ErrorLine, Loaded, useLoad } from '../../ui/states.js';
import './settings.css';

/** Apps people connected to this workspace (their consents), with a way to end each. */
export function ConnectedAppsSettings({ workspaceId }: PageProps) {
  const s = useSettingsStrings();
  const date = useDate();
  const [grants, reload] = useLoad(() => api.GET('/api/workspaces/{id}/authorizations', { params: { path: { id: workspaceId } } }));
  const { error, run } = useAction();
  return (
    <div class="settings stack">
      <p>{s.connectedIntro}</p>
      <ErrorLine error={error} />
      <Loaded state={grants} retry={reload}>
        {(list) =>
          list.length === 0 ? (
            <Empty>{s.noConnected}</Empty>
          ) : (
            <ul class="items">
              {list.map((g) => (
                <li class="item" key={g.id}>
                  <div class="item-main">
                    <span class="title">{g.app.name}</span>
                    <dl class="meta">
                      <div>
                        <dt>{s.connectedBy}</dt>
                        <dd>
                          {g.user.name} ({g.user.email})
                        </dd>
                      </div>
                      <div>
                        <dt>{s.since}</dt>
                        <dd>{date(g.createdAt)}</dd>
                      </div>
                      <div>
                        <dt>{s.clientId}</dt>
                        <dd>
                          <code>{g.app.clientId}</code>
                        </dd>
                      </div>
                    </dl>
                    <ScopeList scopes={g.scopes} />
                  </div>
                  <div class="item-actions">
                    <ConfirmButton
                      label={s.disconnect}
                      accessibleName={`${s.disconnect} ${g.app.name} (${g.user.name})`}
                      question={s.disconnectQuestion(g.app.name, g.user.name)}
                      confirm={s.confirmDisconnect}
                      onConfirm={async () => {
                        if (
                          await run(() => api.DELETE('/api/workspaces/{id}/authorizations/{grantId}', { params: { path: { id: workspaceId, grantId: g.id } } }))
                        )
                          reload();
                      }}
                    />
                  </div>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </div>
  );
}
