import nodemailer from 'nodemailer';

/** A message as the outbox keeps it (sealed) and the transport sends it. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The language of the message (`en`, `ar`), for the Content-Language header. */
  lang: string;
}

/** What sends a message; the SMTP one in production, anything with the same shape in unit tests. */
export interface MailTransport {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * nodemailer over `SMTP_URL` (smtp:// with STARTTLS when offered, smtps:// for implicit TLS;
 * user and password in the URL). Timeouts are short: a server that hangs must not hold the
 * worker (the message is tried again later), and no request ever waits on it.
 */
export function smtpTransport(url: string, from: string): MailTransport {
  const transporter = nodemailer.createTransport({
    url,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    // Never log message bodies: they carry single-use links.
    logger: false,
  } as unknown as Parameters<typeof nodemailer.createTransport>[0]);
  return {
    async send(m) {
      await transporter.sendMail({ from, to: m.to, subject: m.subject, text: m.text, html: m.html, headers: { 'Content-Language': m.lang } });
    },
    close: () => transporter.close(),
  };
}
