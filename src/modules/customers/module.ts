import { plugin, type ModuleRegistration } from '../../wiring.js';
import { customerRoutes } from './routes.js';

export const customersModule: ModuleRegistration = {
  name: 'customers',
  setUp: (w) => ({ plugins: [plugin(customerRoutes, w.resource)] }),
};
