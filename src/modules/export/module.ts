import { plugin, type ModuleRegistration } from '../../wiring.js';
import { exportAdminRoutes, exportRoutes } from './routes.js';

export const exportModule: ModuleRegistration = {
  name: 'export',
  setUp: (w) => {
    const deps = { ...w.resource, shortLinkBaseUrl: w.config.shortLinkBaseUrl, links: w.links };
    return {
      plugins: [plugin(exportRoutes, deps)],
      admin: (operator) => [plugin(exportAdminRoutes, { ...deps, ...operator })],
    };
  },
};
