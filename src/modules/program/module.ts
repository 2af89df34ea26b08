import { plugin, type ModuleRegistration } from '../../wiring.js';
import { programRoutes } from './routes.js';

/** The partner program (operations.md §18): its settings, groups and rewards. */
export const programModule: ModuleRegistration = {
  name: 'program',
  setUp: (w) => ({ plugins: [plugin(programRoutes, { ...w.resource, roleOf: w.roleOf, program: { onWritten: w.partnerLinks.onWritten } })] }),
};
