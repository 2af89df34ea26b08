import { plugin, type ModuleRegistration } from '../../wiring.js';
import { qrRoutes } from './routes.js';

export const qrModule: ModuleRegistration = {
  name: 'qr',
  setUp: (w) => ({ plugins: [plugin(qrRoutes, w.resource)] }),
};
