/**
 * A payout's batch files (src/modules/payouts/files.ts, operations.md §18 "Payouts").
 *
 * test/fixtures/payout-files/ keeps each provider's documented format with its source (README.md
 * there): PayPal Payouts Web, https://developer.paypal.com/payouts/use-payouts/send-money/use-web-ui
 * — no header; e-mail, amount, currency, Customer ID (≤ 30, no spaces), note, wallet; ≤ 5,000
 * rows; its example row `mbrown@email.com,100.5,USD,ID001,Here is your payment,PAYPAL`. Wise's
 * "Send by email" batch template, https://wise.com/help/articles/2663302 and /2663296 — the
 * header `name,recipientEmail,paymentReference,receiverType,amountCurrency,amount,sourceCurrency,
 * targetCurrency`, `amountCurrency` `target` for an exact amount; ≤ 1,000 transfers. Neither
 * states a line end: every file is written and kept with CRLF.
 */
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  PAYOUT_FILE_FORMATS,
  PAYPAL_MAX_ROWS,
  WISE_MAX_ROWS,
  payoutFileStream,
  paypalCustomerId,
  type PayoutFileFormat,
  type PayoutFileItem,
  type PayoutFileText,
} from '../../../src/modules/payouts/files.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/payout-files/${name}`, import.meta.url), 'utf8');

const ID_MARIA = '0190f3a2-7c4e-7d2b-9a61-3f5e8b2c4d10';
const ID_JANE = '0190f3a2-9b01-7a44-8e2f-c0d1e2f3a4b5';

function item(over: Partial<PayoutFileItem>): PayoutFileItem {
  return {
    partnerId: ID_MARIA,
    partnerName: 'Maria Brown',
    method: 'paypal',
    email: 'mbrown@email.com',
    holderName: null,
    destination: null,
    amount: 10050n,
    currency: 'usd',
    ...over,
  };
}

const maria = item({});
const jane = item({ partnerId: ID_JANE, partnerName: 'Jane Doe', email: 'jdoe@example.com', amount: 500n });
const TEXT: PayoutFileText = { note: 'Here is your payment', reference: 'Acme partners 2026-11' };

async function* pagesOf(...pages: PayoutFileItem[][]) {
  yield* pages;
}

async function read(stream: Readable): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

const file = (format: PayoutFileFormat, ...pages: PayoutFileItem[][]) => read(payoutFileStream(format, pagesOf(...pages), TEXT));

describe('PayPal Payouts Web file', () => {
  it('is the documented sample byte for byte: no header, CRLF rows', async () => {
    expect(await file('paypal', [maria], [jane])).toBe(fixture('paypal.csv'));
  });

  it("matches PayPal's own example row column by column (amount equal as a decimal, Customer ID ours)", async () => {
    const documented = fixture('paypal-documented.csv').trimEnd().split(',');
    const ours = (await file('paypal', [maria])).trimEnd().split(',');
    expect(ours).toHaveLength(documented.length);
    expect([ours[0], ours[2], ours[4], ours[5]]).toEqual([documented[0], documented[2], documented[4], documented[5]]);
    expect(Number(ours[1])).toBe(Number(documented[1]));
    expect(ours[3]).toMatch(/^[0-9a-f]{30}$/);
    expect(documented[3]).toMatch(/^\S{1,30}$/);
  });

  it('takes the first 30 hex digits of the partner id as Customer ID', () => {
    expect(paypalCustomerId(ID_MARIA)).toBe('0190f3a27c4e7d2b9a613f5e8b2c4d');
  });

  it('holds only the paypal items, at most 5,000 rows', async () => {
    const wiseOne = item({ method: 'wise', email: 'w@example.com' });
    expect(await file('paypal', [wiseOne, maria, item({ method: 'bank', email: null })])).toBe(
      'mbrown@email.com,100.50,USD,0190f3a27c4e7d2b9a613f5e8b2c4d,Here is your payment,PAYPAL\r\n',
    );
    expect(PAYPAL_MAX_ROWS).toBe(5000);
    expect(PAYOUT_FILE_FORMATS.paypal.maxRows).toBe(5000);
    const full = Array.from({ length: 5000 }, () => maria);
    expect((await file('paypal', full, [wiseOne])).split('\r\n')).toHaveLength(5001);
    await expect(file('paypal', full, [maria])).rejects.toThrow('more than 5000 rows for paypal');
  });

  it('cuts the note to PayPal’s 400 characters and fails on an item it cannot pay', async () => {
    const long = await read(payoutFileStream('paypal', pagesOf([maria]), { ...TEXT, note: 'é'.repeat(450) }));
    expect(long.split(',')[4]).toBe('é'.repeat(400));
    await expect(file('paypal', [item({ email: null })])).rejects.toThrow(`partner ${ID_MARIA} (paypal) has no payout e-mail`);
    await expect(file('paypal', [item({ amount: 0n })])).rejects.toThrow('non-positive amount 0');
  });
});

describe('Wise "send by email" file', () => {
  const w = (over: Partial<PayoutFileItem>) => ({ ...over, method: 'wise' as const, currency: 'eur' });

  it('is the sample byte for byte: the fixed header, then CRLF rows, holder name before partner name', async () => {
    const rows = [w({ ...maria, holderName: null, partnerName: 'Maria Brown' }), w({ ...jane, holderName: 'Jane Doe', partnerName: 'Jane D. Studio' })];
    expect(await file('wise', rows as PayoutFileItem[])).toBe(fixture('wise.csv'));
  });

  it('holds only the wise items, at most 1,000 rows', async () => {
    const one = w(maria) as PayoutFileItem;
    expect(WISE_MAX_ROWS).toBe(1000);
    expect(PAYOUT_FILE_FORMATS.wise.maxRows).toBe(1000);
    expect(await file('wise', [maria, jane])).toBe(fixture('wise.csv').split('\r\n')[0] + '\r\n');
    const full = Array.from({ length: 1000 }, () => one);
    expect((await file('wise', full)).split('\r\n')).toHaveLength(1002);
    await expect(file('wise', full, [one])).rejects.toThrow('more than 1000 rows for wise');
  });
});

describe('our own CSV', () => {
  it('has a header, then every item whatever its method, destination as given', async () => {
    const bank = item({ method: 'bank', email: null, destination: 'DE89 •••• 3000', partnerName: 'Jane, Ltd', amount: 1234n, currency: 'kwd' });
    expect(await file('csv', [maria], [bank])).toBe(
      'partnerName,partnerId,method,destination,amount,currency\r\n' +
        `Maria Brown,${ID_MARIA},paypal,,100.50,USD\r\n` +
        `"Jane, Ltd",${ID_MARIA},bank,DE89 •••• 3000,1.234,KWD\r\n`,
    );
  });

  it('describes each format: content type, filename, row limit', () => {
    expect(PAYOUT_FILE_FORMATS.csv).toMatchObject({ contentType: 'text/csv; charset=utf-8', maxRows: null, method: null });
    expect(PAYOUT_FILE_FORMATS.csv.filename('p1')).toBe('payout-p1.csv');
    expect(PAYOUT_FILE_FORMATS.paypal.filename('p1')).toBe('payout-p1-paypal.csv');
    expect(PAYOUT_FILE_FORMATS.wise.filename('p1')).toBe('payout-p1-wise.csv');
  });
});

describe('every format', () => {
  const evil = '=HYPERLINK("https://evil.example/?x","Click")';

  it('guards a formula in every text cell (name, holder, e-mail, note, reference, destination)', async () => {
    const bad = item({ partnerName: evil, holderName: '+SUM(A1)', email: '@evil.example', destination: '-1+1', method: 'paypal' });
    const text = { note: '=cmd|/c calc', reference: '@ref' };
    const guarded = '"\'=HYPERLINK(""https://evil.example/?x"",""Click"")"';
    expect(await read(payoutFileStream('paypal', pagesOf([bad]), text))).toBe(
      `'@evil.example,100.50,USD,0190f3a27c4e7d2b9a613f5e8b2c4d,'=cmd|/c calc,PAYPAL\r\n`,
    );
    expect((await read(payoutFileStream('wise', pagesOf([{ ...bad, method: 'wise' }]), text))).split('\r\n')[1]).toBe(
      `'+SUM(A1),'@evil.example,'@ref,PERSON,target,100.50,USD,USD`,
    );
    expect((await read(payoutFileStream('wise', pagesOf([{ ...bad, method: 'wise', holderName: null }]), text))).split('\r\n')[1]).toBe(
      `${guarded},'@evil.example,'@ref,PERSON,target,100.50,USD,USD`,
    );
    expect((await read(payoutFileStream('csv', pagesOf([bad]), text))).split('\r\n')[1]).toBe(`${guarded},${ID_MARIA},paypal,'-1+1,100.50,USD`);
  });

  it('writes exact major units: usd, jpy, kwd, and past 2^53 minor units', async () => {
    const big = 2n ** 53n + 1n;
    const amounts = await file(
      'csv',
      [item({ amount: 12345n }), item({ amount: 5n, currency: 'jpy' }), item({ amount: 1234n, currency: 'kwd' })],
      [item({ amount: big }), item({ amount: big, currency: 'jpy' })],
    );
    expect(
      amounts
        .split('\r\n')
        .slice(1, -1)
        .map((line) => line.split(',').slice(-2).join(' ')),
    ).toEqual(['123.45 USD', '5 JPY', '1.234 KWD', '90071992547409.93 USD', '9007199254740993 JPY']);
    expect((await file('paypal', [item({ amount: big })])).split(',')[1]).toBe('90071992547409.93');
  });

  it('streams 10,000 items read chunk by chunk, pulling pages only as the reader goes', async () => {
    let pulled = 0;
    async function* pages() {
      for (let p = 0; p < 100; p++) {
        pulled += 1;
        yield Array.from({ length: 100 }, (_, i) => item({ partnerName: `Partner ${p * 100 + i}`, amount: BigInt(p * 100 + i + 1) }));
      }
    }
    const stream = payoutFileStream('csv', pages(), TEXT);
    let lines = 0;
    let chunks = 0;
    let last = '';
    let mostAhead = 0;
    for await (const chunk of stream) {
      chunks += 1;
      const text = String(chunk);
      lines += text.split('\r\n').length - 1;
      last = text;
      mostAhead = Math.max(mostAhead, pulled - chunks);
    }
    expect(lines).toBe(10_001); // the header and 10,000 items
    expect(chunks).toBe(101);
    expect(last.endsWith(`Partner 9999,${ID_MARIA},paypal,,100.00,USD\r\n`)).toBe(true);
    expect(mostAhead).toBeLessThanOrEqual(2); // a page or two of buffer, never the payout
  });
});
