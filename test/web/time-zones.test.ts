import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchZones, utcOffset, zoneList } from '../../web/src/ui/time-zones.js';

describe('the time-zone picker list', () => {
  const zones = zoneList('UTC', new Date('2026-01-15T12:00:00Z'));

  it("offers the device zone first, UTC second, and today's names (Asia/Kolkata, not Asia/Calcutta)", () => {
    expect(zones[0]!.name).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone.replace('Asia/Calcutta', 'Asia/Kolkata'));
    expect(zones.map((z) => z.name)).toContain('UTC');
    expect(zones.map((z) => z.name)).not.toContain('Asia/Calcutta');
    expect(new Set(zones.map((z) => z.name)).size).toBe(zones.length);
  });

  it('finds a zone by part of its name, its older name or its offset', () => {
    expect(matchZones(zones, 'kolk').map((z) => z.name)).toEqual(['Asia/Kolkata']);
    expect(matchZones(zones, 'calcutta').map((z) => z.name)).toEqual(['Asia/Kolkata']);
    expect(matchZones(zones, 'new york').map((z) => z.name)).toEqual(['America/New_York']);
    expect(matchZones(zones, 'America/Sao').map((z) => z.name)).toEqual(['America/Sao_Paulo']);
    expect(matchZones(zones, '+05:45').map((z) => z.name)).toEqual(['Asia/Kathmandu']);
    expect(matchZones(zones, 'atlantis')).toEqual([]);
    expect(matchZones(zones, '  ')).toBe(zones);
  });

  it('writes offsets as UTC±hh:mm, summer time included', () => {
    expect(utcOffset('Asia/Kolkata', new Date('2026-01-15T00:00:00Z'))).toBe('UTC+05:30');
    expect(utcOffset('UTC', new Date())).toBe('UTC+00:00');
    expect(utcOffset('Europe/Paris', new Date('2026-07-01T00:00:00Z'))).toBe('UTC+02:00');
    expect(utcOffset('Not/AZone', new Date())).toBe('');
  });

  it('every match holds every word typed, whatever is typed', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (query) => {
        const words = query
          .toLowerCase()
          .replace(/_/g, ' ')
          .split(/[\s/]+/)
          .filter(Boolean);
        for (const z of matchZones(zones, query)) for (const w of words) expect(z.key).toContain(w);
      }),
      { numRuns: 200 },
    );
  });
});
