import { createSocket } from 'node:dgram';

/**
 * A tiny authoritative DNS responder on 127.0.0.1 for the TXT check: answers TXT queries for the
 * names in `records` (NXDOMAIN for the rest), so verification runs through the real resolver.
 */
export async function startTxtServer(): Promise<{ address: string; records: Map<string, string[]>; close(): Promise<void> }> {
  const records = new Map<string, string[]>();
  const socket = createSocket('udp4');
  socket.on('message', (query, peer) => {
    const { name, end } = readName(query, 12);
    const values = records.get(name.toLowerCase());
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // id
    header.writeUInt16BE(values ? 0x8400 : 0x8403, 2); // response, authoritative; NXDOMAIN when unknown
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(values?.length ?? 0, 6);
    const question = query.subarray(12, end + 4);
    const answers = (values ?? []).map((v) => {
      const text = Buffer.from(v);
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      rr.writeUInt16BE(16, 2); // TXT
      rr.writeUInt16BE(1, 4); // IN
      rr.writeUInt32BE(0, 6); // TTL
      rr.writeUInt16BE(text.length + 1, 10);
      return Buffer.concat([rr, Buffer.from([text.length]), text]);
    });
    socket.send(Buffer.concat([header, question, ...answers]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    records,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

function readName(buf: Buffer, at: number): { name: string; end: number } {
  const labels: string[] = [];
  let i = at;
  while (buf[i] !== 0 && i < buf.length) {
    labels.push(buf.subarray(i + 1, i + 1 + buf[i]!).toString());
    i += buf[i]! + 1;
  }
  return { name: labels.join('.'), end: i + 1 };
}
