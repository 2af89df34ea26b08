/**
 * Where the dashboard shows an API error: the input the body's `field` names, read as the
 * server writes it (bodies made by the server's own errorBody), never from the message text.
 */
import { describe, expect, it } from 'vitest';
import { invalid, invalidQuery, notFound, tooManyItems } from '../../src/core/errors.js';
import { errorBody } from '../../src/http/errors.js';
import { errorField, errorTarget } from '../../web/src/ui/api-error.js';

describe('errorTarget', () => {
  it('finds the item, the field and the rule of a bulk body', () => {
    expect(errorTarget(errorBody(invalid('[3].url', 'https_required')))).toEqual({ index: 3, field: 'url', reason: 'https_required' });
    expect(errorTarget(errorBody(invalid('[0].geo.DE', 'required')))).toMatchObject({ index: 0, field: 'geo.DE' });
    expect(errorTarget(errorBody(invalid('[12].tagIds[1]', 'required')))).toMatchObject({ index: 12, field: 'tagIds[1]' });
  });
  it('reads a single body field and a query parameter as they are', () => {
    expect(errorTarget(errorBody(invalid('name', 'required')))).toEqual({ field: 'name', reason: 'required' });
    expect(errorTarget(errorBody(invalidQuery('startDate', 'required')))).toEqual({ field: 'startDate', reason: 'required' });
  });
  it('is undefined when the error names no input', () => {
    expect(errorTarget(errorBody(tooManyItems(100, 101)))).toBeUndefined();
    expect(errorTarget(errorBody(notFound('link', 'x')))).toBeUndefined();
    expect(errorTarget(new Error('Failed to fetch'))).toBeUndefined();
    expect(errorTarget(undefined)).toBeUndefined();
  });
});

describe('errorField', () => {
  it("names the field of the form's item (`[0].url` → url), not another item's", () => {
    expect(errorField(errorBody(invalid('[0].url', 'https_required')))).toBe('url');
    expect(errorField(errorBody(invalid('[2].url', 'https_required')), 2)).toBe('url');
    expect(errorField(errorBody(invalid('[2].url', 'https_required')), 0)).toBeUndefined();
    expect(errorField(errorBody(invalid('[0]', 'required')))).toBeUndefined();
    expect(errorField(errorBody(invalidQuery('endDate', 'required')))).toBe('endDate');
  });
});
