import { plugin, type ModuleRegistration } from '../../wiring.js';
import { eventRoutes } from './routes.js';

export const eventsModule: ModuleRegistration = {
  name: 'events',
  setUp: (w) => ({ plugins: [plugin(eventRoutes, { ...w.resource, shortLinkBaseUrl: w.config.shortLinkBaseUrl })] }),
};
