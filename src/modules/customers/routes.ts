import { Type } from '@sinclair/typebox';
import { routesPlugin } from '../../http/types.js';
import { serviceContext, type ResourceDeps } from '../../core/context.js';
import { BulkOf, DeletedIds, IdList } from '../../http/schemas.js';
import type { Item } from '../../core/items.js';
import { Customer, CustomerListQuery, CustomerUpdate } from './schemas.js';
import { deleteCustomers, listCustomers, updateCustomers } from './service.js';

export const customerRoutes = routesPlugin<ResourceDeps>('customers', (app, deps) => {
  app.addSchema(Customer);
  const tags = ['Customers'];
  const list = Type.Array(Type.Ref(Customer));

  app.get(
    '/api/customers',
    {
      config: { scope: 'customersRead' },
      schema: { operationId: 'listCustomers', tags, summary: 'List customers', querystring: CustomerListQuery, response: { 200: list } },
    },
    async (req) => listCustomers({ ctx: serviceContext(deps, req), input: req.query as never }),
  );

  app.put(
    '/api/customers',
    {
      config: { scope: 'customersWrite' },
      schema: {
        operationId: 'updateCustomers',
        tags,
        summary: 'Update customers',
        description: 'Updates existing customers by id or externalId; never creates. An entry matching no active customer is a 400. Input order.',
        body: BulkOf(CustomerUpdate, 'Entries to update'),
        response: { 200: list },
      },
    },
    async (req) => updateCustomers({ ctx: serviceContext(deps, req), input: req.body as Item[] }),
  );

  app.delete(
    '/api/customers',
    {
      config: { scope: 'customersWrite' },
      schema: {
        operationId: 'deleteCustomers',
        tags,
        summary: 'Delete customers',
        description: 'Soft delete by id; events stay.',
        body: IdList,
        response: { 200: DeletedIds },
      },
    },
    async (req) => ({ deletedIds: await deleteCustomers({ ctx: serviceContext(deps, req), input: req.body as string[] }) }),
  );
});
