import type { Figures } from './figures.js';
import type { Group } from './metrics.js';

/** A group's earlier figures as figures of its own (0 and {} when the API gave none). */
export const previousOf = (g: Group): Figures => g.previous ?? { clicks: 0, leads: 0, sales: 0, revenue: {} };
