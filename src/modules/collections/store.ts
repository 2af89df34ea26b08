import { resourceStore } from '../../db/resource-table.js';

export interface CollectionRow {
  id: string;
  name: string;
  description: string | null;
  createdAt: string;
  updatedAt: string;
}

export const collectionStore = resourceStore<CollectionRow>({
  table: 'collections',
  softDelete: true,
  columns: [
    { field: 'name', column: 'name', type: 'text' },
    { field: 'description', column: 'description', type: 'text' },
  ],
});
