import { plugin, type ModuleRegistration } from '../../wiring.js';
import { tagRoutes } from './routes.js';

export const tagsModule: ModuleRegistration = {
  name: 'tags',
  setUp: (w) => ({ plugins: [plugin(tagRoutes, w.resource)] }),
};
