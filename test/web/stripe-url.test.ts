import { describe, expect, it } from 'vitest';
import { reachableFromInternet } from '../../web/src/pages/integrations/public-url.js';
import { strings } from '../../web/src/pages/integrations/strings.js';

describe('the Stripe page: is the webhook URL reachable from the internet', () => {
  it('says no for this machine, private and link-local addresses and local-only names', () => {
    for (const url of [
      'http://localhost:3000/webhooks/stripe/1',
      'http://app.localhost:3000/webhooks/stripe/1',
      'http://127.0.0.1:3000/webhooks/stripe/1',
      'http://0.0.0.0:3000/x',
      'http://10.1.2.3/x',
      'http://172.16.0.9/x',
      'http://172.31.255.1/x',
      'http://192.168.1.20:3000/x',
      'http://169.254.10.1/x',
      'http://100.64.0.1/x',
      'http://[::1]:3000/x',
      'http://[fd12:3456::1]/x',
      'http://[fe80::1]/x',
      'http://[::ffff:10.0.0.1]/x',
      'http://linktrail.local/x',
      'http://links.test/x',
      'http://links.internal/x',
      'http://router.home.arpa/x',
      'http://my-laptop:3000/x',
      'not a url',
    ]) {
      expect({ url, reachable: reachableFromInternet(url) }).toEqual({ url, reachable: false });
    }
  });

  it('says yes for public names and addresses', () => {
    for (const url of [
      'https://links.example.com/webhooks/stripe/1',
      'https://links.example.com./webhooks/stripe/1',
      'http://8.8.8.8/x',
      'http://172.32.0.1/x',
      'http://100.128.0.1/x',
      'http://[2001:db8::1]/x',
      'http://[::ffff:8.8.8.8]/x',
      'https://abc123.ngrok-free.app/webhooks/stripe/1',
    ]) {
      expect({ url, reachable: reachableFromInternet(url) }).toEqual({ url, reachable: true });
    }
  });

  it('has the warning in English and Arabic', () => {
    expect(strings.en.unreachable).toMatch(/Stripe cannot reach/);
    expect(strings.ar.unreachable).toMatch(/[\u0600-\u06ff]{3}/);
    expect(strings.ar.unreachable).not.toBe(strings.en.unreachable);
  });
});
