import { describe, expect, it } from 'vitest';
import { initialValues, landingUrl, utmFromUrl, utmOf, withTemplate } from '../../web/src/pages/links/form-values.js';

const values = (url: string, utm: Record<string, string> = {}) => {
  const v = initialValues(undefined, 'c');
  v.url = url;
  for (const [k, x] of Object.entries(utm)) v[`utm.${k}` as keyof typeof v] = x;
  return v;
};

describe("the UTM builder's values", () => {
  it("shows where a visitor lands: the link's values replace the destination's own of the same name, referral as ref", () => {
    expect(landingUrl(values('https://example.com/a?utm_source=old&x=1#top', { source: 'news', referral: 'maya' }))).toBe(
      'https://example.com/a?utm_source=news&x=1&ref=maya#top',
    );
    expect(landingUrl(values('not a url', { source: 'news' }))).toBeUndefined();
  });

  it('reads UTM parameters of a pasted destination into the empty fields only', () => {
    const read = utmFromUrl(values('https://example.com/?utm_source=fb&utm_medium=social&ref=x', { medium: 'mine' }));
    expect(utmOf(read)).toEqual({ source: 'fb', medium: 'mine', referral: 'x' });
    const plain = values('https://example.com/');
    expect(utmFromUrl(plain)).toBe(plain);
  });

  it('applies a template whole: its values, the fields it lacks emptied', () => {
    const applied = withTemplate(values('https://example.com/', { term: 'shoes', source: 'x' }), { source: 'newsletter', campaign: 'spring' });
    expect(utmOf(applied)).toEqual({ source: 'newsletter', campaign: 'spring' });
  });
});
