/**
 * A real SMTP server for tests (the `smtp-server` package) on 127.0.0.1: every message it
 * accepts is parsed (`mailparser`) and kept; `refuse` makes it answer 451 to each message until
 * switched back, as a mail server in trouble does.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { within } from './wait.js';

export interface TestSmtp {
  url: string;
  received: ParsedMail[];
  /** True: each message is refused (451) until set back to false. */
  refuse: boolean;
  /** Messages refused so far. */
  refused: number;
  /** The first received message to `to`, waiting up to `ms` for it. */
  messageTo(to: string, ms?: number): Promise<ParsedMail | undefined>;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  const state: TestSmtp = {
    url: '',
    received: [],
    refuse: false,
    refused: 0,
    async messageTo(to, ms = 10_000) {
      const find = () => state.received.find((m) => addressesOf(m).includes(to.toLowerCase()));
      await within(ms, async () => find() !== undefined, 25);
      return find();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    // Plain SMTP on loopback: no certificate to trust, no login to keep.
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onData(stream, _session, callback) {
      if (state.refuse) {
        stream.resume();
        state.refused++;
        return stream.on('end', () => callback(Object.assign(new Error('try again later'), { responseCode: 451 })));
      }
      simpleParser(stream)
        .then((mail) => {
          state.received.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  return state;
}

function addressesOf(mail: ParsedMail): string[] {
  const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
  return to.flatMap((a) => a.value.map((v) => (v.address ?? '').toLowerCase()));
}
