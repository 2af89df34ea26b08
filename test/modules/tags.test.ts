import { describe, expect, it } from 'vitest';
import { bulkResourceSuite, expect400, ids, type ResourceCase, type Row } from './bulk-resource.helpers.js';

const tags: ResourceCase = {
  label: 'tags',
  path: '/api/tags',
  readScope: 'tagsRead',
  writeScope: 'tagsWrite',
  fields: ['name', 'color'],
  optional: { color: ['#3366ff', '#A1B2C3'] },
  nameMax: 50,
  softDelete: false,
  item: (n) => ({ name: `tag-${n}` }),
  bad: [
    { why: 'no name', item: { color: '#000000' }, field: 'name' },
    { why: 'an empty name', item: { name: '' }, field: 'name' },
    { why: 'a name of 51 characters', item: { name: 't'.repeat(51) }, field: 'name' },
    { why: 'a numeric name', item: { name: 3 }, field: 'name' },
    { why: 'a null name', item: { name: null }, field: 'name' },
    { why: 'a colour name', item: { name: 'ok', color: 'red' }, field: 'color' },
    { why: 'a 5-digit colour', item: { name: 'ok', color: '#12345' }, field: 'color' },
    { why: 'a 7-digit colour', item: { name: 'ok', color: '#1234567' }, field: 'color' },
    { why: 'a colour without #', item: { name: 'ok', color: '123456' }, field: 'color' },
    { why: 'a non-hex colour', item: { name: 'ok', color: '#GGGGGG' }, field: 'color' },
    { why: 'a numeric colour', item: { name: 'ok', color: 0x123456 }, field: 'color' },
  ],
};

const suite = bulkResourceSuite(tags);

describe('tags: names unique in the workspace, ignoring case', () => {
  it('rejects a duplicate name within one POST (other case) with 400 naming the second, nothing written', async () => {
    const { api } = await suite.fresh();
    expect400(await api.post([{ name: 'Alpha' }, { name: 'beta' }, { name: 'ALPHA' }]), '[2].name');
    expect400(await api.put([{ name: 'gamma' }, { name: 'Gamma' }]), '[1].name');
    expect(await api.all()).toEqual([]);
  });

  it('rejects a name an existing tag holds (other case) on POST and PUT insert, nothing written', async () => {
    const { api } = await suite.fresh();
    const existing = await api.create([{ name: 'Alpha', color: '#112233' }]);
    expect400(await api.post([{ name: 'fresh' }, { name: 'alpha' }]), '[1].name');
    expect400(await api.post([{ name: 'ALPHA' }]), '[0].name');
    expect400(await api.put([{ name: 'fresh' }, { name: 'aLpHa' }]), '[1].name');
    expect(await api.all()).toEqual(existing);
  });

  it("rejects renaming a tag to another tag's name, and an insert taking an update's new name", async () => {
    const { api } = await suite.fresh();
    const [a, b] = await api.create([{ name: 'Alpha' }, { name: 'Beta' }]);
    const before = await api.all();
    expect400(await api.put([{ id: b!.id, name: 'ALPHA' }]), '[0].name');
    expect400(await api.put([{ id: a!.id, name: 'Gamma' }, { name: 'gamma' }]), '[1].name');
    expect400(
      await api.put([
        { id: a!.id, name: 'Gamma' },
        { id: b!.id, name: 'GAMMA' },
      ]),
      '[1].name',
    );
    // An update that keeps its name still holds it against an insert.
    expect400(await api.put([{ id: a!.id, color: '#000000' }, { name: 'alpha' }]), '[1].name');
    expect(await api.all()).toEqual(before);
  });

  it('lets a tag change the case of its own name', async () => {
    const { api } = await suite.fresh();
    const [a] = await api.create([{ name: 'alpha' }]);
    const res = await api.put([{ id: a!.id, name: 'ALPHA' }]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<Row[]>()[0]!.name).toBe('ALPHA');
  });

  it('a rename frees the old name for an insert in the same request', async () => {
    const { api } = await suite.fresh();
    const [a] = await api.create([{ name: 'alpha' }]);
    const res = await api.put([{ id: a!.id, name: 'omega' }, { name: 'Alpha' }]);
    expect(res.statusCode, res.body).toBe(200);
    const [renamed, inserted] = res.json<Row[]>();
    expect(renamed).toMatchObject({ id: a!.id, name: 'omega' });
    expect(inserted!.name).toBe('Alpha');
    expect((await api.all()).map((r) => r.name)).toEqual(['omega', 'Alpha']);
  });

  it('a rename frees the old name for another rename in the same request, in either order', async () => {
    const { api } = await suite.fresh();
    const [a, b, d] = await api.create([{ name: 'alpha' }, { name: 'beta' }, { name: 'delta' }]);
    // b takes a's name, listed before a moves away.
    let res = await api.put([
      { id: b!.id, name: 'Alpha' },
      { id: a!.id, name: 'omega' },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    // A swap: each takes the other's name.
    res = await api.put([
      { id: a!.id, name: 'delta' },
      { id: d!.id, name: 'omega' },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    const byId = new Map((await api.all()).map((r) => [r.id, r.name]));
    expect(byId).toEqual(
      new Map([
        [a!.id, 'delta'],
        [b!.id, 'Alpha'],
        [d!.id, 'omega'],
      ]),
    );
  });

  it('a deleted tag is gone for good: its name can be reused at once', async () => {
    const { api } = await suite.fresh();
    const [a] = await api.create([{ name: 'Reuse', color: '#abcdef' }]);
    const del = await api.del([a!.id]);
    expect(del.statusCode).toBe(200);
    expect(await api.byId(a!.id)).toEqual([]);
    const [again] = await api.create([{ name: 'reuse' }]);
    expect(again!.id).not.toBe(a!.id);
    expect(again!.color).toBeNull();
    expect400(await api.del([a!.id]), '[0]');
    expect(ids(await api.all())).toEqual([again!.id]);
  });

  it('names are unique per workspace: another workspace may use the same name', async () => {
    const { api: apiA } = await suite.fresh();
    const { api: apiB } = await suite.fresh();
    const [a] = await apiA.create([{ name: 'Shared' }]);
    const [b] = await apiB.create([{ name: 'shared' }]);
    expect(b!.id).not.toBe(a!.id);
    expect(await apiA.all()).toEqual([a]);
    expect(await apiB.all()).toEqual([b]);
  });

  it('stores the colour as given', async () => {
    const { api } = await suite.fresh();
    const rows = await api.create([{ name: 'upper', color: '#A1B2C3' }, { name: 'lower', color: '#a1b2c3' }, { name: 'none' }]);
    expect(rows.map((r) => r.color)).toEqual(['#A1B2C3', '#a1b2c3', null]);
  });
});
