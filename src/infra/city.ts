import maxmind, { type Reader } from 'maxmind';

/** A visitor's region and city, each "<name>, <country code>" (equally named places of different countries stay apart). */
export interface Place {
  region?: string;
  city?: string;
}

export type PlaceLookup = (ip: string) => Place | undefined;

/** What the dashboard shows to credit the city database, as its licence asks. */
export interface CitySource {
  databaseType: string;
  description: string | null;
  /** The credit line its licence asks for, and where it links to. */
  attribution: string;
  attributionUrl: string | null;
}

/** A GeoIP2-shaped record (GeoLite2 City, DB-IP Lite City) or a flat one (the ip-location-db builds). */
interface CityRecord {
  country?: { iso_code?: string } | string;
  country_code?: string;
  subdivisions?: { names?: Record<string, string> }[];
  city?: { names?: Record<string, string> } | string;
  state1?: string;
}

/** "<name>, <country code>", or the name alone when the country is unknown; none without a name. */
export function placeName(name: string | undefined, country: string | undefined): string | undefined {
  const n = name?.trim();
  if (!n) return undefined;
  return country ? `${n}, ${country.toUpperCase()}` : n;
}

function placeOf(r: CityRecord): Place {
  const country = typeof r.country === 'string' ? r.country : (r.country?.iso_code ?? r.country_code);
  const city = typeof r.city === 'string' ? r.city : r.city?.names?.en;
  const region = r.subdivisions?.[0]?.names?.en ?? r.state1;
  return { region: placeName(region, country), city: placeName(city, country) };
}

/** The credit the licence of a known database asks for (DB-IP Lite: CC BY 4.0; GeoLite2: MaxMind's EULA). */
export function creditOf(databaseType: string, description: string | null): Pick<CitySource, 'attribution' | 'attributionUrl'> {
  const text = `${databaseType} ${description ?? ''}`;
  if (/geolite/i.test(text))
    return {
      attribution: 'This product includes GeoLite2 data created by MaxMind, available from https://www.maxmind.com.',
      attributionUrl: 'https://www.maxmind.com',
    };
  if (/db-?ip/i.test(text)) return { attribution: 'IP Geolocation by DB-IP', attributionUrl: 'https://db-ip.com' };
  return { attribution: description ?? databaseType, attributionUrl: null };
}

/**
 * The operator's city database (GEOIP_CITY_DB), read into memory once at start. Looked up by the
 * click writer, where the country is: the redirect never waits on it. Answers are kept by address
 * (visitors come back), 10,000 at most.
 */
export async function openPlaceLookup(file: string): Promise<{ lookup: PlaceLookup; source: CitySource }> {
  const reader = (await maxmind.open(file, { cache: { max: 10_000 } })) as unknown as Pick<Reader<never>, 'metadata'> & { get(ip: string): CityRecord | null };
  const { databaseType, description } = reader.metadata;
  // Typed as a string by mmdb-lib, but a map of languages in the format (and in real files).
  const d = description as unknown as string | Record<string, string> | undefined;
  const desc = typeof d === 'string' ? d : (d?.en ?? Object.values(d ?? {})[0] ?? null);
  const known = new Map<string, Place | null>();
  const find = (ip: string): Place | null => {
    try {
      const r = reader.get(ip);
      return r ? placeOf(r) : null;
    } catch {
      return null;
    }
  };
  const lookup: PlaceLookup = (ip) => {
    let place = known.get(ip);
    if (place === undefined) {
      if (known.size >= 10_000) known.clear();
      known.set(ip, (place = find(ip)));
    }
    return place ?? undefined;
  };
  return { lookup, source: { databaseType, description: desc, ...creditOf(databaseType, desc) } };
}
