/**
 * The pure pieces of places: the credit a city database's licence asks for (from its metadata),
 * place names with their country, and the trusted headers' values as edges send them (UTF-8
 * bytes that Node reads as Latin-1).
 */
import { describe, expect, test } from 'vitest';
import { creditOf, placeName } from '../../src/infra/city.js';
import { placeFromHeader } from '../../src/modules/redirect/visit.js';

describe('city database credit', () => {
  test("DB-IP Lite: CC BY 4.0's credit; GeoLite2: MaxMind's notice; another: its own description", () => {
    expect(creditOf('DBIP-City-Lite', 'dbip.com IP to City Lite')).toEqual({ attribution: 'IP Geolocation by DB-IP', attributionUrl: 'https://db-ip.com' });
    expect(creditOf('GeoLite2-City', 'GeoLite2City database')).toEqual({
      attribution: 'This product includes GeoLite2 data created by MaxMind, available from https://www.maxmind.com.',
      attributionUrl: 'https://www.maxmind.com',
    });
    expect(creditOf('Acme-City', 'Acme city data, licensed to Example Ltd')).toEqual({
      attribution: 'Acme city data, licensed to Example Ltd',
      attributionUrl: null,
    });
    expect(creditOf('Acme-City', null)).toEqual({ attribution: 'Acme-City', attributionUrl: null });
  });
});

describe('place names', () => {
  test('"<name>, <country code>", the name alone without a country, none without a name', () => {
    expect(placeName('London', 'gb')).toBe('London, GB');
    expect(placeName(' Zürich ', undefined)).toBe('Zürich');
    expect(placeName('  ', 'DE')).toBeUndefined();
    expect(placeName(undefined, 'DE')).toBeUndefined();
  });

  test('a header is read only when configured; UTF-8 sent by the edge comes back whole', () => {
    const latin1 = (v: string) => Buffer.from(v, 'utf8').toString('latin1');
    expect(placeFromHeader({ 'cf-ipcity': 'Paris' }, undefined, 'FR')).toBeUndefined();
    expect(placeFromHeader({ 'cf-ipcity': 'Paris' }, 'cf-ipcity', 'FR')).toBe('Paris, FR');
    expect(placeFromHeader({ 'cf-ipcity': latin1('São Paulo') }, 'cf-ipcity', 'BR')).toBe('São Paulo, BR');
    expect(placeFromHeader({ 'cf-region': latin1('Île-de-France') }, 'cf-region', undefined)).toBe('Île-de-France');
    // Latin-1 that is not UTF-8 stays as it came.
    expect(placeFromHeader({ 'cf-ipcity': 'K\u00f8benhavn' }, 'cf-ipcity', 'DK')).toBe('K\u00f8benhavn, DK');
    expect(placeFromHeader({ 'cf-ipcity': '  ' }, 'cf-ipcity', 'DK')).toBeUndefined();
  });
});
