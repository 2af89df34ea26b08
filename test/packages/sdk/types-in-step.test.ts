/**
 * The SDK's types are generated from the OpenAPI document and checked in: when the document
 * changes, `npm run sdk:types` must be run, or this fails (scripts/sdk-types.ts).
 */
import { readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { SDK_TYPES_FILE, sdkTypesSource, serviceDocument } from '../../../scripts/sdk-types.js';

let close: (() => Promise<void>) | undefined;

afterAll(async () => {
  await close?.();
});

it('packages/sdk/src/generated/openapi.ts is what the document generates', async () => {
  const service = await serviceDocument();
  close = service.close;
  const generated = await sdkTypesSource(service.document);
  const checkedIn = readFileSync(SDK_TYPES_FILE, 'utf8');
  expect(generated === checkedIn, 'The OpenAPI document changed and the SDK types did not: run npm run sdk:types').toBe(true);
});
