/** The twelve scopes of api.md, each independent of the others. */
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
] as const;

export type Scope = (typeof SCOPES)[number];
