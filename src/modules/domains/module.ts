import { plugin, type Infrastructure, type ModuleRegistration } from '../../wiring.js';
import { domainAdminRoutes, domainRoutes } from './routes.js';
import { ActiveHosts, loadActiveHosts, type DomainDeps } from './service.js';

/** Claimed hosts (operations.md §13): the active ones in memory, loaded before the app answers; what a change of them is told. */
export async function startClaimedHosts(infra: Infrastructure): Promise<{ hosts: ActiveHosts; domains: DomainDeps }> {
  const { config, bus } = infra;
  const hosts = new ActiveHosts(() => loadActiveHosts(infra.database.db), bus, infra.logger);
  await hosts.start();
  const domains: DomainDeps = {
    reservedHosts: new Set(config.reservedHosts),
    dnsServers: config.dnsServers,
    // This instance's table is fresh when the change's answer goes out; others follow by the bus.
    onChanged: async () => {
      await bus.publishDomainsChanged();
      await hosts.refresh();
    },
  };
  return { hosts, domains };
}

export const domainsModule: ModuleRegistration = {
  name: 'domains',
  setUp: (w) => ({
    plugins: [plugin(domainRoutes, { ...w.resource, domains: w.domains, roleOf: w.roleOf, isActiveHost: (host) => w.hosts.get(host) !== undefined })],
    admin: (operator) => [plugin(domainAdminRoutes, { ...operator, db: w.database.db, clock: w.clock, domains: w.domains })],
    // No request or import reads the claimed hosts any more.
    workers: [{ closeStage: 3, close: () => w.hosts.close() }],
  }),
};
