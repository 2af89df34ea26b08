import { plugin, type ModuleRegistration } from '../../wiring.js';
import { utmTemplateRoutes } from './routes.js';

export const utmTemplatesModule: ModuleRegistration = {
  name: 'utm-templates',
  setUp: (w) => ({ plugins: [plugin(utmTemplateRoutes, w.resource)] }),
};
