import { PollLoop } from '../../core/poll-loop.js';
import type { Sealer } from '../../core/sealed.js';
import type { Db } from '../../db/connect.js';
import * as store from './store.js';
import type { MailMessage, MailTransport } from './transport.js';

export interface MailWorkerDeps {
  db: Db;
  sealer: Sealer;
  transport: MailTransport;
  logger: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** How often an idle worker looks for messages another instance queued or a crash left. */
  pollMs?: number;
  leaseMs?: number;
  /** Waits before each retry (MAIL_RETRY_DELAYS); after the last the message is dropped and logged. */
  retryDelaysMs: number[];
}

/**
 * Sends the outbox's messages on every instance, one at a time: takes the next due message
 * nobody holds, sends it, deletes it; a failure is tried again later (MAIL_RETRY_DELAYS) and
 * logged by kind and id only (the message carries single-use links).
 */
export class MailWorker {
  /** When this worker's earliest put-back message falls due (it wakes then rather than at the next poll). */
  private retryAt = Infinity;
  private readonly loop = new PollLoop({
    step: () => this.sendNext(),
    delayMs: () => this.nextLook(),
    onError: (err) => this.deps.logger.error({ err }, 'mail worker'),
  });

  constructor(private readonly deps: MailWorkerDeps) {}

  start(): this {
    this.loop.start();
    return this;
  }

  /** A message was just queued here (and committed): send it now rather than at the next poll. */
  wake(): void {
    this.loop.wake();
  }

  async close(): Promise<void> {
    await this.loop.stop();
    this.deps.transport.close();
  }

  /** The poll, or sooner when a message put back falls due before it. */
  private nextLook(): number {
    const poll = this.deps.pollMs ?? 5000;
    const untilRetry = this.retryAt - Date.now();
    if (untilRetry <= poll) this.retryAt = Infinity;
    return Math.max(0, Math.min(poll, untilRetry));
  }

  /** True when a message was taken (sent or put back for later). */
  private async sendNext(): Promise<boolean> {
    const mail = await store.leaseMail(this.deps.db, this.deps.leaseMs ?? 60_000);
    if (!mail) return false;
    try {
      const message = JSON.parse(this.deps.sealer.open('mail-message', mail.messageSealed)) as MailMessage;
      await this.deps.transport.send(message);
      await store.deleteMail(this.deps.db, mail.id);
    } catch (err) {
      await this.failed(mail, err);
    }
    return true;
  }

  private async failed(mail: store.QueuedMail, err: unknown): Promise<void> {
    const delays = this.deps.retryDelaysMs;
    const reason = err instanceof Error ? err.message : String(err);
    const delay = delays[mail.attempts - 1];
    if (delay === undefined) {
      this.deps.logger.error({ mailId: mail.id, kind: mail.kind, attempts: mail.attempts, reason }, 'mail dropped after its last attempt');
      await store.deleteMail(this.deps.db, mail.id);
      return;
    }
    this.deps.logger.warn({ mailId: mail.id, kind: mail.kind, attempts: mail.attempts, reason, retryInMs: delay }, 'mail not sent; will try again');
    await store.retryMail(this.deps.db, mail.id, delay, reason);
    this.retryAt = Math.min(this.retryAt, Date.now() + delay);
  }
}
