/**
 * PostgreSQL's binary COPY format, as the click writer sends it: a header, then per row a field
 * count and each field as its length and bytes (-1: null), then a trailer. The server takes the
 * values as they are stored instead of parsing text: a click's four uuids and its time were 14 %
 * of PostgreSQL's time in the text format (issue 48). The types must be the columns' own:
 * uuid (16 bytes), timestamptz (microseconds since 2000-01-01 UTC, int8), text (UTF-8),
 * boolean (1 byte), smallint (int2).
 */

/** The signature, the flags (none) and the header extension's length (none). */
export const COPY_BINARY_HEADER: Buffer = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
/** A field count of -1 ends the data. */
export const COPY_BINARY_TRAILER: Buffer = Buffer.from([0xff, 0xff]);

/** Bytes of a uuid field, a timestamptz field, a smallint field and a null field, lengths included. */
export const UUID_FIELD = 20;
export const TIME_FIELD = 12;
export const INT2_FIELD = 6;
export const NULL_FIELD = 4;

const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX['0123456789abcdef'.charCodeAt(i)] = HEX['0123456789ABCDEF'.charCodeAt(i)] = i;

function hexDigit(id: string, i: number): number {
  const v = HEX[id.charCodeAt(i)] ?? -1;
  if (v < 0) throw new TypeError(`not a uuid: ${JSON.stringify(id)}`);
  return v;
}

/** Writes a field length (a big-endian int32; -1: null) at `at`, byte by byte: cheaper than a Buffer method for a few bytes. */
function writeLength(buf: Buffer, at: number, length: number): void {
  buf[at] = length >>> 24;
  buf[at + 1] = (length >>> 16) & 0xff;
  buf[at + 2] = (length >>> 8) & 0xff;
  buf[at + 3] = length & 0xff;
}

/** Writes a uuid field (its length, then its 16 bytes) at `at`; returns the offset past it. */
export function writeUuidField(buf: Buffer, at: number, id: string): number {
  if (id.length !== 36 || id.charCodeAt(8) !== 45 || id.charCodeAt(13) !== 45 || id.charCodeAt(18) !== 45 || id.charCodeAt(23) !== 45)
    throw new TypeError(`not a uuid: ${JSON.stringify(id)}`);
  writeLength(buf, at, 16);
  let o = at + 4;
  for (let i = 0; i < 36; i += 2) {
    if (i === 8 || i === 13 || i === 18 || i === 23) i++;
    buf[o++] = (hexDigit(id, i) << 4) | hexDigit(id, i + 1);
  }
  return o;
}

const EPOCH_2000_MS = 946_684_800_000;
const TWO_32 = 0x1_0000_0000;

/** Writes a timestamptz field of `ms` (milliseconds since 1970, UTC); returns the offset past it. */
export function writeTimeField(buf: Buffer, at: number, ms: number): number {
  const us = (ms - EPOCH_2000_MS) * 1000;
  writeLength(buf, at, 8);
  if (Number.isSafeInteger(us)) {
    // Exact as a double (years ~1715–2285): split in two 32-bit halves.
    const high = Math.floor(us / TWO_32);
    writeLength(buf, at + 4, high | 0);
    writeLength(buf, at + 8, (us - high * TWO_32) | 0);
  } else {
    // Beyond 2^53 µs a double rounds (9999-12-31T23:59:59.999 would be stored a few µs late).
    buf.writeBigInt64BE(BigInt(ms - EPOCH_2000_MS) * 1000n, at + 4);
  }
  return at + TIME_FIELD;
}

/** Writes a smallint field; returns the offset past it. */
export function writeInt2Field(buf: Buffer, at: number, value: number): number {
  writeLength(buf, at, 2);
  buf[at + 4] = (value >>> 8) & 0xff;
  buf[at + 5] = value & 0xff;
  return at + INT2_FIELD;
}

/** Writes a null field; returns the offset past it. */
export function writeNullField(buf: Buffer, at: number): number {
  writeLength(buf, at, -1);
  return at + NULL_FIELD;
}

/** The fields of fixed values, encoded once (a click's link, agent, referrer…, shared by many clicks). */
export function encodeFields(fields: readonly (CopyValue | null)[]): Buffer {
  const parts: Buffer[] = [];
  for (const f of fields) {
    if (f === null) parts.push(Buffer.from([0xff, 0xff, 0xff, 0xff]));
    else {
      const bytes = f.kind === 'text' ? Buffer.from(f.value, 'utf8') : f.kind === 'bool' ? Buffer.from([f.value ? 1 : 0]) : uuidBytes(f.value);
      const length = Buffer.alloc(4);
      length.writeInt32BE(bytes.length);
      parts.push(length, bytes);
    }
  }
  return Buffer.concat(parts);
}

export type CopyValue = { kind: 'text'; value: string } | { kind: 'uuid'; value: string } | { kind: 'bool'; value: boolean };

function uuidBytes(id: string): Buffer {
  const field = Buffer.alloc(UUID_FIELD);
  writeUuidField(field, 0, id);
  return field.subarray(4);
}

export const text = (value: string | null): CopyValue | null => (value === null ? null : { kind: 'text', value });
export const uuid = (value: string | null): CopyValue | null => (value === null ? null : { kind: 'uuid', value });
export const bool = (value: boolean): CopyValue => ({ kind: 'bool', value });
