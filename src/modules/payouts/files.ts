import { Readable } from 'node:stream';
import { csvField, csvLine } from '../../core/csv.js';
import { formatMajor } from '../../core/money.js';

/**
 * A payout's batch file for the owner's payment provider (operations.md §18, "Payouts"):
 * Linktrail moves no money, the owner uploads this file. Pure writers: the caller reads the items
 * a page at a time and streams the file, so a payout of any size is held one page at a time.
 *
 * Every text cell goes through csvField (src/core/csv.ts): formula-guarded, quoted when needed;
 * amounts are our own digits (formatMajor), written as they are. Records end in CRLF (RFC 4180),
 * for every format.
 */

export type PayoutMethod = 'paypal' | 'wise' | 'bank';
export type PayoutFileFormat = 'paypal' | 'wise' | 'csv';

export interface PayoutFileItem {
  partnerId: string;
  partnerName: string;
  method: PayoutMethod;
  email: string | null;
  holderName: string | null;
  /** For the csv format, as the caller chose to show it (masked or not). */
  destination: string | null;
  /** Minor units of `currency` (lower-case ISO 4217). */
  amount: bigint;
  currency: string;
}

/** The words that go to the recipients: PayPal's note to each, Wise's payment reference. */
export interface PayoutFileText {
  note: string;
  reference: string;
}

/** PayPal Payouts Web: "You can add a maximum of 5000 rows" a file. */
export const PAYPAL_MAX_ROWS = 5000;
/** Wise batch payments: up to 1,000 transfers a file. */
export const WISE_MAX_ROWS = 1000;
/** PayPal's "Note to recipient": at most 400 characters. */
export const PAYPAL_NOTE_MAX = 400;

/**
 * Wise's "Send by email" batch template, its header as the template carries it (Wise writes the
 * recipient's bank details in later, from the link it mails them).
 */
export const WISE_COLUMNS = [
  'name',
  'recipientEmail',
  'paymentReference',
  'receiverType',
  'amountCurrency',
  'amount',
  'sourceCurrency',
  'targetCurrency',
] as const;

export const PAYOUT_CSV_COLUMNS = ['partnerName', 'partnerId', 'method', 'destination', 'amount', 'currency'] as const;

/** PayPal's Customer ID (at most 30 characters, no spaces): the first 30 hex digits of the partner id. */
export function paypalCustomerId(partnerId: string): string {
  return partnerId.replaceAll('-', '').slice(0, 30);
}

function cells(values: string[]): string {
  return `${values.join(',')}\r\n`;
}

function providerAmount(item: PayoutFileItem): string {
  if (item.amount <= 0n) throw new RangeError(`payout file: partner ${item.partnerId} has a non-positive amount ${item.amount}`);
  return formatMajor(item.amount, item.currency);
}

function recipientEmail(item: PayoutFileItem): string {
  if (!item.email) throw new Error(`payout file: partner ${item.partnerId} (${item.method}) has no payout e-mail`);
  return item.email;
}

/** One PayPal row: e-mail, amount, CURRENCY, Customer ID, note, recipient wallet. No header. */
export function paypalRow(item: PayoutFileItem, note: string): string {
  return cells([
    csvField(recipientEmail(item)),
    providerAmount(item),
    csvField(item.currency.toUpperCase()),
    csvField(paypalCustomerId(item.partnerId)),
    csvField(Array.from(note).slice(0, PAYPAL_NOTE_MAX).join('')),
    'PAYPAL',
  ]);
}

/**
 * One Wise "send by email" row: the holder's name, e-mail, reference, PERSON, "target" (the
 * partner gets the exact amount, the fee is the owner's), amount, the payout currency as source
 * and target (the owner pays from a balance in that currency; nothing is converted, §14).
 */
export function wiseRow(item: PayoutFileItem, reference: string): string {
  const currency = csvField(item.currency.toUpperCase());
  return cells([
    csvField(item.holderName || item.partnerName),
    csvField(recipientEmail(item)),
    csvField(reference),
    'PERSON',
    'target',
    providerAmount(item),
    currency,
    currency,
  ]);
}

/** One row of our own CSV: every item whatever its method. */
export function payoutCsvRow(item: PayoutFileItem): string {
  return cells([
    csvField(item.partnerName),
    csvField(item.partnerId),
    csvField(item.method),
    csvField(item.destination),
    formatMajor(item.amount, item.currency),
    csvField(item.currency.toUpperCase()),
  ]);
}

export interface PayoutFileDescription {
  contentType: string;
  /** The attachment's name for a payout. */
  filename(payoutId: string): string;
  /** The provider's rows a file (null: no limit); a payout with more items of the method needs several files. */
  maxRows: number | null;
  /** The items this file holds: those of this method (null: all). */
  method: PayoutMethod | null;
}

export const PAYOUT_FILE_FORMATS: Readonly<Record<PayoutFileFormat, PayoutFileDescription>> = {
  paypal: {
    contentType: 'text/csv; charset=utf-8',
    filename: (id) => `payout-${id}-paypal.csv`,
    maxRows: PAYPAL_MAX_ROWS,
    method: 'paypal',
  },
  wise: {
    contentType: 'text/csv; charset=utf-8',
    filename: (id) => `payout-${id}-wise.csv`,
    maxRows: WISE_MAX_ROWS,
    method: 'wise',
  },
  csv: { contentType: 'text/csv; charset=utf-8', filename: (id) => `payout-${id}.csv`, maxRows: null, method: null },
};

function headerOf(format: PayoutFileFormat): string {
  if (format === 'wise') return csvLine(WISE_COLUMNS);
  if (format === 'csv') return csvLine(PAYOUT_CSV_COLUMNS);
  return ''; // PayPal's file has no header row
}

function rowOf(format: PayoutFileFormat, text: PayoutFileText): (item: PayoutFileItem) => string {
  if (format === 'paypal') return (item) => paypalRow(item, text.note);
  if (format === 'wise') return (item) => wiseRow(item, text.reference);
  return payoutCsvRow;
}

/**
 * The file as a stream: its header, then each page's rows of the format's method as one chunk,
 * a page pulled only when the reader wants more. Past the provider's row limit, or on an item
 * the provider cannot pay (no e-mail, amount not positive), the stream fails: the caller checks
 * the count first (PAYOUT_FILE_FORMATS[format].maxRows), the rest cannot happen for a payout.
 */
export function payoutFileStream(format: PayoutFileFormat, pages: AsyncIterable<PayoutFileItem[]>, text: PayoutFileText): Readable {
  const { maxRows, method } = PAYOUT_FILE_FORMATS[format];
  const row = rowOf(format, text);
  async function* chunks() {
    const header = headerOf(format);
    if (header) yield header;
    let rows = 0;
    for await (const page of pages) {
      const items = method === null ? page : page.filter((i) => i.method === method);
      rows += items.length;
      if (maxRows !== null && rows > maxRows) throw new RangeError(`payout file: more than ${maxRows} rows for ${format}`);
      if (items.length > 0) yield items.map(row).join('');
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}
