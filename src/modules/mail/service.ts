import type { Sealer } from '../../core/sealed.js';
import type { Conn } from '../../db/connect.js';
import { newId } from '../../db/ids.js';
import * as store from './store.js';
import type { MailMessage } from './transport.js';

export { MailWorker } from './worker.js';
export { smtpTransport, type MailMessage, type MailTransport } from './transport.js';

/**
 * What a module needs to send mail: a sealer for the outbox and a nudge for this instance's
 * worker. Absent when the operator configured no SMTP_URL.
 */
export interface Mailer {
  sealer: Sealer;
  /** Called after the queuing transaction committed. */
  wake(): void;
}

/** Queues `message` in `conn`'s transaction; the worker sends it once that commits. */
export async function queueMail(conn: Conn, mailer: Mailer, kind: string, message: MailMessage): Promise<void> {
  await store.insertMail(conn, { id: newId(), kind, messageSealed: mailer.sealer.seal('mail-message', JSON.stringify(message)) });
}

/** How many messages wait to be sent. */
export const queuedMailCount = (conn: Conn): Promise<number> => store.countQueued(conn);
