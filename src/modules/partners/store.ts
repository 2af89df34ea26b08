import { resourceStore } from '../../db/resource-table.js';

export interface PartnerRow {
  id: string;
  name: string;
  email: string | null;
  image: string | null;
  createdAt: string;
  updatedAt: string;
}

export const partnerStore = resourceStore<PartnerRow>({
  table: 'partners',
  softDelete: true,
  columns: [
    { field: 'name', column: 'name', type: 'text' },
    { field: 'email', column: 'email', type: 'text' },
    { field: 'image', column: 'image', type: 'text' },
  ],
});
