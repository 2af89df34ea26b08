/** The key form's presets of scopes: pure, so they are tested without a browser. */
import type { Scope } from '../../session.js';

export const PRESETS = ['readOnly', 'trackingOnly', 'fullAccess'] as const;
export type Preset = (typeof PRESETS)[number];

/**
 * The scopes of a preset, of those `allowed` (the role's): every read scope; only
 * conversionsWrite (POST /api/track/lead and /sale, what a checkout's server needs); all.
 */
export function presetScopes(preset: Preset, allowed: readonly Scope[]): Scope[] {
  if (preset === 'readOnly') return allowed.filter((s) => s.endsWith('Read'));
  if (preset === 'trackingOnly') return allowed.filter((s) => s === 'conversionsWrite');
  return [...allowed];
}

/** The preset these scopes are exactly, if any (its button shows pressed). */
export function presetOf(selected: readonly Scope[], allowed: readonly Scope[]): Preset | undefined {
  const same = (a: readonly Scope[]) => a.length === selected.length && a.every((s) => selected.includes(s));
  return PRESETS.find((p) => presetScopes(p, allowed).length > 0 && same(presetScopes(p, allowed)));
}
