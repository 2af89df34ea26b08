/** The twelve scopes of api.md and the two of operations.md §11 (webhooks), each independent of the others. */
export const SCOPES = [
  'linksRead',
  'linksWrite',
  'collectionsRead',
  'collectionsWrite',
  'tagsRead',
  'tagsWrite',
  'analyticsRead',
  'conversionsWrite',
  'customersRead',
  'customersWrite',
  'partnersRead',
  'partnersWrite',
  'webhooksRead',
  'webhooksWrite',
] as const;

export type Scope = (typeof SCOPES)[number];
