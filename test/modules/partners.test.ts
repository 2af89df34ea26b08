import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bulkResourceSuite, expect400, type ResourceCase } from './bulk-resource.helpers.js';

const partners: ResourceCase = {
  label: 'partners',
  path: '/api/partners',
  readScope: 'partnersRead',
  writeScope: 'partnersWrite',
  fields: ['name', 'email', 'image'],
  // The program's fields (test/modules/partners/program-fields.test.ts checks their values).
  serverFields: [
    'status',
    'groupId',
    'referralKey',
    'couponCodes',
    'tenantId',
    'userId',
    'defaultLinkId',
    'payoutMethod',
    'payoutDestination',
    'payoutDetailsChangedAt',
  ],
  optional: {
    email: ['ada@partners.example', 'grace@partners.example'],
    image: ['https://cdn.example.com/ada.png', 'https://img.example.org/p/grace.jpg?size=200'],
  },
  softDelete: true,
  item: (n) => ({ name: `Partner ${n}` }),
  bad: [
    { why: 'no name', item: { email: 'x@example.com' }, field: 'name' },
    { why: 'an empty name', item: { name: '' }, field: 'name' },
    { why: 'a numeric name', item: { name: 1 }, field: 'name' },
    { why: 'a null name', item: { name: null }, field: 'name' },
    { why: 'an email that is not one', item: { name: 'p', email: 'not-an-email' }, field: 'email' },
    { why: 'a numeric email', item: { name: 'p', email: 5 }, field: 'email' },
    { why: 'an http image', item: { name: 'p', image: 'http://cdn.example.com/a.png' }, field: 'image' },
    { why: 'an ftp image', item: { name: 'p', image: 'ftp://cdn.example.com/a.png' }, field: 'image' },
    { why: 'a data: image', item: { name: 'p', image: 'data:image/png;base64,AAAA' }, field: 'image' },
    { why: 'an image that is not a URL', item: { name: 'p', image: 'cdn.example.com/a.png' }, field: 'image' },
    { why: 'an image with no host', item: { name: 'p', image: 'https://' }, field: 'image' },
    { why: 'a boolean image', item: { name: 'p', image: true }, field: 'image' },
  ],
};

const suite = bulkResourceSuite(partners);

describe('partners: specifics', () => {
  it('an http image fails POST, PUT insert and PUT update with 400 naming the item, nothing written', async () => {
    const { api } = await suite.fresh();
    const [a] = await api.create([{ name: 'Ada', image: 'https://cdn.example.com/ada.png' }]);
    const before = await api.all();
    const http = 'http://cdn.example.com/ada.png';
    expect400(await api.post([{ name: 'ok' }, { name: 'ok2' }, { name: 'Bad', image: http }]), '[2].image');
    expect400(await api.put([{ name: 'ok' }, { name: 'Bad', image: http }]), '[1].image');
    expect400(
      await api.put([
        { id: a!.id, name: 'Ada L.' },
        { id: randomUUID(), name: 'x' },
      ]),
      '[1].id',
    );
    expect400(await api.put([{ name: 'new' }, { id: a!.id, image: http }]), '[1].image');
    expect(await api.all()).toEqual(before);
  });

  it('keeps an https image with path and query as given, and clears email and image with null together', async () => {
    const { api } = await suite.fresh();
    const image = 'https://img.example.org/p/a%20b.png?w=64&h=64#x';
    const [a] = await api.create([{ name: 'Grace', email: 'grace@example.com', image }]);
    expect(a).toMatchObject({ name: 'Grace', email: 'grace@example.com', image });
    const res = await api.put([{ id: a!.id, email: null, image: null }]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([{ ...a, email: null, image: null, updatedAt: res.json<{ updatedAt: string }[]>()[0]!.updatedAt }]);
  });

  it('a soft-deleted partner stays out of every read and write', async () => {
    const { api } = await suite.fresh();
    const [a, b] = await api.create([{ name: 'gone' }, { name: 'kept' }]);
    expect((await api.del([a!.id])).statusCode).toBe(200);
    expect(await api.byId(a!.id)).toEqual([]);
    expect(await api.all()).toEqual([b]);
    expect400(await api.put([{ id: a!.id, email: 'back@example.com' }]), '[0].id');
    expect400(await api.del([a!.id]), '[0]');
  });
});
