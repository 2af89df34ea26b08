import type { Infrastructure, ModuleRegistration, Wiring } from '../../wiring.js';
import { MailWorker, smtpTransport } from './service.js';

/** Mail (operations.md §15), sent by a worker on every instance from the shared outbox; none without SMTP_URL. */
export function mailWorker({ config, database, sealer, logger }: Infrastructure): Wiring['mail'] {
  if (!config.mail) return undefined;
  const worker = new MailWorker({
    db: database.db,
    sealer,
    transport: smtpTransport(config.mail.url, config.mail.from),
    retryDelaysMs: config.mail.retryDelaysMs,
    logger,
  });
  return { worker, mailer: { sealer, wake: () => worker.wake() } };
}

export const mailModule: ModuleRegistration = {
  name: 'mail',
  setUp: ({ mail }) => ({ workers: mail ? [{ closeStage: 2, start: () => mail.worker.start(), close: () => mail.worker.close() }] : [] }),
};
