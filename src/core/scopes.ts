/** The twelve scopes of api.md, the two of operations.md §11 (webhooks) and the two of §18 (partner programs), each independent of the others. */
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
  'programsRead',
  'programsWrite',
] as const;

export type Scope = (typeof SCOPES)[number];
