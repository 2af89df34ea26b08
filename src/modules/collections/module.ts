import { plugin, type ModuleRegistration } from '../../wiring.js';
import { collectionRoutes } from './routes.js';

export const collectionsModule: ModuleRegistration = {
  name: 'collections',
  setUp: (w) => ({ plugins: [plugin(collectionRoutes, w.resource)] }),
};
