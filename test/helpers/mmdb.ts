/**
 * A tiny MaxMind DB (.mmdb) writer for tests: IPv4 networks, 24-bit records, strings, maps,
 * arrays and unsigned integers: enough for a city database of a few networks. npm has no
 * maintained writer (MaxMind's own is Go and Perl), so tests build their database with this
 * rather than ship a real one. Format: https://maxmind.github.io/MaxMind-DB/
 */

type Value = string | number | Value[] | { [key: string]: Value };

function control(type: number, size: number): Buffer {
  const extended = type > 7;
  const head = extended ? 0 : type << 5;
  const ext = extended ? [type - 7] : [];
  if (size < 29) return Buffer.from([head | size, ...ext]);
  if (size < 285) return Buffer.from([head | 29, ...ext, size - 29]);
  const rest = size - 285;
  return Buffer.from([head | 30, ...ext, rest >> 8, rest & 0xff]);
}

function uint(type: number, n: number): Buffer {
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.concat([control(type, bytes.length), Buffer.from(bytes)]);
}

function encode(v: Value): Buffer {
  if (typeof v === 'string') {
    const bytes = Buffer.from(v, 'utf8');
    return Buffer.concat([control(2, bytes.length), bytes]);
  }
  if (typeof v === 'number') return uint(v < 65_536 ? 5 : 6, v);
  if (Array.isArray(v)) return Buffer.concat([control(11, v.length), ...v.map(encode)]);
  const entries = Object.entries(v);
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([k, x]) => [encode(k), encode(x)])]);
}

type Slot = { node: number } | { data: number } | undefined;

/** An .mmdb holding each network (CIDR, e.g. 81.2.69.0/24) with its record. */
export function buildMmdb(networks: { cidr: string; record: { [key: string]: Value } }[], meta: { databaseType: string; description: string }): Buffer {
  const nodes: [Slot, Slot][] = [[undefined, undefined]];
  const data: Buffer[] = [];
  let dataSize = 0;
  for (const { cidr, record } of networks) {
    const [ip, bits] = cidr.split('/') as [string, string];
    const addr = ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
    const encoded = encode(record);
    const offset = dataSize;
    data.push(encoded);
    dataSize += encoded.length;
    let node = 0;
    for (let i = 0; i < Number(bits); i++) {
      const bit = Math.floor(addr / 2 ** (31 - i)) % 2;
      if (i === Number(bits) - 1) {
        nodes[node]![bit] = { data: offset };
        break;
      }
      const next = nodes[node]![bit];
      if (next && 'node' in next) node = next.node;
      else {
        nodes.push([undefined, undefined]);
        nodes[node]![bit] = { node: nodes.length - 1 };
        node = nodes.length - 1;
      }
    }
  }
  const count = nodes.length;
  const value = (s: Slot) => (s === undefined ? count : 'node' in s ? s.node : count + 16 + s.data);
  const tree = Buffer.alloc(count * 6);
  nodes.forEach(([l, r], i) => {
    tree.writeUIntBE(value(l), i * 6, 3);
    tree.writeUIntBE(value(r), i * 6 + 3, 3);
  });
  const metadata = encode({
    node_count: count,
    record_size: 24,
    ip_version: 4,
    database_type: meta.databaseType,
    languages: ['en'],
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: 1_700_000_000,
    description: { en: meta.description },
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...data, Buffer.from('ABCDEF4D61784D696E642E636F6D', 'hex'), metadata]);
}
