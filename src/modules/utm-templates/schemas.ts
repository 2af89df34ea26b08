import { Type } from '@sinclair/typebox';
import { DateTime, Uuid } from '../../http/schemas.js';

/** Limits shared by the request schemas and the service. */
export const NAME_MAX_LENGTH = 50;
export const VALUE_MAX_LENGTH = 500;
export const MAX_TEMPLATES = 100;

/** The keys of a link's `utm` (api.md), so a template applies to a link as it is. */
export const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content', 'referral'] as const;
export type UtmKey = (typeof UTM_KEYS)[number];
export type UtmValues = Partial<Record<UtmKey, string>>;

const name = Type.String({ minLength: 1, maxLength: NAME_MAX_LENGTH, description: 'Unique in the workspace, ignoring case (409 `utm_template_name_taken`)' });
const value = Type.String({ maxLength: VALUE_MAX_LENGTH });
const Utm = Type.Object(Object.fromEntries(UTM_KEYS.map((k) => [k, Type.Optional(value)])), {
  description: "The values the template sets, with the keys of a link's `utm` (referral is sent as `ref`). Empty strings are dropped; at least one value.",
});

export const UtmTemplate = Type.Object(
  { id: Uuid, name: Type.String(), utm: Utm, createdAt: DateTime, updatedAt: DateTime },
  { $id: 'UtmTemplate', description: "Extension. A named set of UTM values the dashboard applies to a link's `utm`." },
);

export const UtmTemplateParam = Type.Object({ id: Uuid });
export const UtmTemplateCreate = Type.Object({ name, utm: Utm });
export const UtmTemplateUpdate = Type.Object({ name: Type.Optional(name), utm: Type.Optional(Utm) });
