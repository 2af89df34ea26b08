import { describe, expect, it } from 'vitest';
import { bulkResourceSuite, expect400, type ResourceCase } from './bulk-resource.helpers.js';

const collections: ResourceCase = {
  label: 'collections',
  path: '/api/collections',
  readScope: 'collectionsRead',
  writeScope: 'collectionsWrite',
  fields: ['name', 'description'],
  optional: { description: ['Spring campaign links', 'Autumn campaign links'] },
  nameMax: 190,
  softDelete: true,
  item: (n) => ({ name: `Collection ${n}` }),
  bad: [
    { why: 'no name', item: { description: 'no name' }, field: 'name' },
    { why: 'an empty name', item: { name: '' }, field: 'name' },
    { why: 'a name of 191 characters', item: { name: 'c'.repeat(191) }, field: 'name' },
    { why: 'a numeric name', item: { name: 42 }, field: 'name' },
    { why: 'a null name', item: { name: null }, field: 'name' },
    { why: 'an array as name', item: { name: ['a'] }, field: 'name' },
    { why: 'a numeric description', item: { name: 'ok', description: 7 }, field: 'description' },
    { why: 'an object as description', item: { name: 'ok', description: { text: 'x' } }, field: 'description' },
  ],
};

const suite = bulkResourceSuite(collections);

describe('collections: specifics', () => {
  it('names need not be unique and keep their Unicode text', async () => {
    const { api } = await suite.fresh();
    const rows = await api.create([{ name: 'Same' }, { name: 'same' }, { name: 'Same' }, { name: 'مجموعة 🚀', description: 'وصف' }]);
    expect(rows.map((r) => r.name)).toEqual(['Same', 'same', 'Same', 'مجموعة 🚀']);
    expect(rows[3]!.description).toBe('وصف');
    expect(await api.all()).toEqual(rows);
  });

  it('a soft-deleted collection stays out of every read and write', async () => {
    const { api } = await suite.fresh();
    const [a, b] = await api.create([{ name: 'gone' }, { name: 'kept' }]);
    expect((await api.del([a!.id])).statusCode).toBe(200);
    expect(await api.byId(a!.id)).toEqual([]);
    expect(await api.all()).toEqual([b]);
    expect400(await api.put([{ id: a!.id, description: 'revive' }]), '[0].id');
    expect400(await api.del([a!.id]), '[0]');
    // Its name is free for a new collection.
    const [again] = await api.create([{ name: 'gone' }]);
    expect(again!.id).not.toBe(a!.id);
  });
});
