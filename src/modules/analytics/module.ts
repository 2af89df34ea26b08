import { plugin, type ModuleRegistration } from '../../wiring.js';
import { analyticsRoutes } from './routes.js';

export const analyticsModule: ModuleRegistration = {
  name: 'analytics',
  setUp: ({ resource, config, cities }) => ({
    plugins: [
      plugin(analyticsRoutes, {
        ...resource,
        shortLinkBaseUrl: config.shortLinkBaseUrl,
        places: { cityDatabase: cities?.source ?? null, regionHeader: config.regionHeader !== undefined, cityHeader: config.cityHeader !== undefined },
      }),
    ],
  }),
};
