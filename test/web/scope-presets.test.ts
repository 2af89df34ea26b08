/** The API key form's scope presets (web/src/pages/settings/scope-presets.ts). */
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/core/scopes.js';
import { presetOf, presetScopes } from '../../web/src/pages/settings/scope-presets.js';

describe('scope presets', () => {
  it('read only: every read scope; tracking only: conversionsWrite; full access: all the role allows', () => {
    expect(presetScopes('readOnly', SCOPES)).toEqual([
      'linksRead',
      'collectionsRead',
      'tagsRead',
      'analyticsRead',
      'customersRead',
      'partnersRead',
      'webhooksRead',
      'programsRead',
    ]);
    expect(presetScopes('trackingOnly', SCOPES)).toEqual(['conversionsWrite']);
    expect(presetScopes('fullAccess', SCOPES)).toEqual([...SCOPES]);
  });

  it('never offers a scope the role does not allow', () => {
    const viewer = SCOPES.filter((s) => s.endsWith('Read'));
    expect(presetScopes('fullAccess', viewer)).toEqual(viewer);
    expect(presetScopes('trackingOnly', viewer)).toEqual([]);
  });

  it('names the preset a selection is exactly, in any order, and none for a mix', () => {
    expect(presetOf(['conversionsWrite'], SCOPES)).toBe('trackingOnly');
    expect(presetOf([...presetScopes('readOnly', SCOPES)].reverse(), SCOPES)).toBe('readOnly');
    expect(presetOf(['linksRead', 'conversionsWrite'], SCOPES)).toBeUndefined();
    expect(presetOf([], SCOPES)).toBeUndefined();
  });
});
