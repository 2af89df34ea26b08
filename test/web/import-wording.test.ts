/**
 * Links → Import says nothing is done before the job ran (issue 43): the preview's outcome of a
 * row is what will happen, in English and Arabic, never "Imported"; a public shortener's host is
 * said with what becomes of its links.
 */
import { describe, expect, it } from 'vitest';
import { strings } from '../../web/src/pages/imports/strings.js';

describe('the preview wording', () => {
  it('promises rather than reports: "Will be imported" / "سيُستورد", "Will not be imported" / "لن يُستورد"', () => {
    expect(strings.en.willImport).toBe('Will be imported');
    expect(strings.en.wontImport).toBe('Will not be imported');
    expect(strings.ar.willImport).toBe('سيُستورد');
    expect(strings.ar.wontImport).toBe('لن يُستورد');
    for (const lang of [strings.en, strings.ar]) {
      expect(lang.willImport).not.toMatch(/^Imported$|^يُستورد$/);
      expect(lang.previewSummary('10', '100')).not.toMatch(/\bImported\b/);
    }
  });

  it('names a public shortener and says its links keep working at the old service, in both languages', () => {
    expect(strings.en.publicShortener('bit.ly', '2')).toBe(
      'bit.ly (2 of the rows read): a public shortener. Its links keep working at the old service, not here: they are imported without their old short URL, and bit.ly is not claimed.',
    );
    expect(strings.ar.publicShortener('bit.ly', '٢')).toContain('\u2068bit.ly\u2069');
    expect(strings.ar.publicShortener('bit.ly', '٢')).toContain('الخدمة القديمة');
  });
});
