/**
 * Mail the service sends (issue 34: the password reset link), through the SMTP server `smtp` in
 * the config names, with nodemailer (README, "Dependencies and why"). One transport per app,
 * built at start-up; the CA file is read then, so a missing file stops start-up, not a reset.
 * Nothing of a message (its body carries a reset link) and not the SMTP password reaches a log
 * line: a failure is logged by its SMTP response code only.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import nodemailer from 'nodemailer';
import type { ResolvedConfig } from '../config/schema.js';

export type SmtpSettings = NonNullable<ResolvedConfig['smtp']>;

export interface OutgoingMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** What a failed send is logged as: the SMTP reply code or nodemailer's error code, never the message (it may quote the body). */
export function mailFailure(err: unknown): string {
  const e = err as { responseCode?: unknown; code?: unknown };
  if (typeof e?.responseCode === 'number') return `smtp ${e.responseCode}`;
  return typeof e?.code === 'string' ? e.code : 'failed';
}

export function createMailer(smtp: SmtpSettings, configDir: string): Mailer {
  const ca = smtp.caFile === undefined ? undefined : readFileSync(resolve(configDir, smtp.caFile), 'utf8');
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    // `secure`: TLS from the first byte (RFC 8314 §3.3); `requireTLS`: STARTTLS or no mail (RFC 3207),
    // so a server (or a man in the middle) that does not offer it cannot have the link in the clear.
    secure: smtp.security === 'tls',
    requireTLS: smtp.security === 'starttls',
    ignoreTLS: smtp.security === 'none',
    ...(smtp.auth ? { auth: { user: smtp.auth.user, pass: smtp.auth.password } } : {}),
    ...(ca === undefined ? {} : { tls: { ca } }),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
    logger: false,
    debug: false,
  });
  return {
    async send(mail) {
      await transport.sendMail({ from: smtp.from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    close: () => transport.close(),
  };
}
