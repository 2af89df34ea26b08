/** The TXT check of a single sign-on domain, with the resolver injected (node:dns resolveTxt's shape). */
import { describe, expect, test } from 'vitest';
import { checkTxt, txtMatches, txtNameOf } from '../../../src/modules/sso/txt.js';

const TOKEN = 'linktrail-sso=abc123';
const answering = (records: string[][]) => async (name: string) => {
  expect(name).toBe(txtNameOf('corp.test'));
  return records;
};
const failing = (code: string) => async () => {
  throw Object.assign(new Error(code), { code });
};

describe('txtMatches', () => {
  test('a record equal to the token, its strings joined (DNS splits long values)', () => {
    expect(txtMatches([[TOKEN]], TOKEN)).toBe(true);
    expect(txtMatches([['v=spf1 -all'], ['linktrail-sso=', 'abc123']], TOKEN)).toBe(true);
    expect(txtMatches([[` ${TOKEN} `]], TOKEN)).toBe(true);
  });
  test('not a prefix, a suffix, another case or another token', () => {
    expect(txtMatches([[`${TOKEN}x`]], TOKEN)).toBe(false);
    expect(txtMatches([[TOKEN.slice(0, -1)]], TOKEN)).toBe(false);
    expect(txtMatches([[TOKEN.toUpperCase()]], TOKEN)).toBe(false);
    expect(txtMatches([], TOKEN)).toBe(false);
  });
});

describe('checkTxt', () => {
  test('found, missing, mismatched, failed', async () => {
    expect(await checkTxt(answering([[TOKEN]]), 'corp.test', TOKEN)).toEqual({ ok: true });
    expect(await checkTxt(answering([]), 'corp.test', TOKEN)).toEqual({ ok: false, reason: 'missing' });
    expect(await checkTxt(failing('ENOTFOUND'), 'corp.test', TOKEN)).toEqual({ ok: false, reason: 'missing' });
    expect(await checkTxt(failing('ENODATA'), 'corp.test', TOKEN)).toEqual({ ok: false, reason: 'missing' });
    expect(await checkTxt(answering([['other']]), 'corp.test', TOKEN)).toEqual({ ok: false, reason: 'mismatch', found: ['other'] });
    expect(await checkTxt(failing('ETIMEOUT'), 'corp.test', TOKEN)).toEqual({ ok: false, reason: 'failed', problem: 'ETIMEOUT' });
  });
});
