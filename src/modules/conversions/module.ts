import { plugin, type ModuleRegistration } from '../../wiring.js';
import { conversionRoutes } from './routes.js';

export const conversionsModule: ModuleRegistration = {
  name: 'conversions',
  setUp: (w) => ({ plugins: [plugin(conversionRoutes, { ...w.resource, conversions: w.conversions })] }),
};
