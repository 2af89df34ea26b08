import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { paths } from '../api/schema.js';
import { useStrings } from '../i18n/index.js';

export type PlaceSources = paths['/api/analytics/places']['get']['responses'][200]['content']['application/json'];

const STRINGS = {
  en: { source: 'Places:' },
  ar: { source: 'بيانات الأماكن:' },
};

/**
 * The credit line the operator's city database (GEOIP_CITY_DB) asks for, for under a places
 * breakdown (region, city): "IP Geolocation by DB-IP" linked to db-ip.com for DB-IP Lite
 * (CC BY 4.0), MaxMind's notice for GeoLite2. The notice itself stays as its licence words it
 * (Latin, isolated left to right in Arabic). Nothing when no city database is configured.
 * Reads GET /api/analytics/places itself unless the page passes `sources`.
 */
export function GeoCredit({ sources }: { sources?: PlaceSources | null }) {
  const s = useStrings(STRINGS);
  const fetched = usePlaceSources(sources === undefined);
  const db = (sources === undefined ? fetched : sources)?.cityDatabase;
  if (!db) return null;
  const notice = db.attributionUrl ? (
    <a href={db.attributionUrl} target="_blank" rel="noopener noreferrer">
      {db.attribution}
    </a>
  ) : (
    db.attribution
  );
  return (
    <p class="geo-credit">
      {s.source} <bdi dir="ltr">{notice}</bdi>
    </p>
  );
}

/** GET /api/analytics/places once (null until it answers, or when it fails: no credit is due without a database). */
export function usePlaceSources(wanted = true): PlaceSources | null {
  const [found, setFound] = useState<PlaceSources | null>(null);
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    api.GET('/api/analytics/places').then(
      (r) => live && setFound((r.data as PlaceSources | undefined) ?? null),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [wanted]);
  return found;
}
