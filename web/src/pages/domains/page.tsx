import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import { Empty, Loaded, useLoad } from '../../ui/states.js';
import { ClaimForm } from './claim-form.js';
import { DomainItem } from './domain-item.js';
import { strings } from './strings.js';
import '../settings/settings.css';
import './domains.css';

/** Settings → Domains: claim a host, add its TXT record, verify it; where it sends visitors; give it up. */
export function DomainsPage() {
  const w = useStrings(strings);
  const [domains, reload] = useLoad(() => api.GET('/api/domains', { params: { query: { take: 100 } } }));
  // What the last action did, said once in the page's status line.
  const [notice, setNotice] = useState('');
  const done = (message: string) => {
    setNotice(message);
    reload();
  };
  return (
    <div class="settings stack">
      <p>{w.intro}</p>
      <ClaimForm onClaimed={(d) => done(w.claimed(d.host))} />
      <p role="status" class="status">
        {notice}
      </p>
      <section aria-labelledby="dom-list">
        <h2 id="dom-list">{w.listTitle}</h2>
        <Loaded state={domains} retry={reload}>
          {(list) =>
            list.length === 0 ? (
              <Empty>{w.empty}</Empty>
            ) : (
              <ul class="items">
                {list.map((d) => (
                  <DomainItem key={d.id} domain={d} onChanged={done} />
                ))}
              </ul>
            )
          }
        </Loaded>
      </section>
    </div>
  );
}
