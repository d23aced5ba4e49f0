/**
 * A real SMTP server on loopback for the mail tests (issue 34, password reset), with the
 * `smtp-server` package: STARTTLS required (a certificate from a test CA, whose PEM the service
 * is given as `smtp.caFile`), AUTH PLAIN/LOGIN with one account. It keeps what it received; the
 * body is decoded from quoted-printable (nodemailer's choice for long or non-ASCII lines) so a
 * test can read the link out of it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { issue, makeCa } from './certificates.js';

export interface ReceivedMail {
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly text: string;
  /** The whole message as it came, for "nothing secret in it" checks. */
  readonly raw: string;
}

export interface TestSmtpServer {
  readonly port: number;
  /** A PEM file of the CA that issued the server's certificate. */
  readonly caFile: string;
  readonly user: string;
  readonly password: string;
  readonly received: ReceivedMail[];
  /** Resolves with the next mail to `to`, or rejects after `timeoutMs`. */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

function decodeQuotedPrintable(body: string): string {
  const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

function parse(raw: string, from: string, to: string[]): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const header = (name: string): string => new RegExp(`^${name}: (.*)$`, 'mi').exec(head)?.[1] ?? '';
  const body = raw.slice(split + 4);
  const text = /quoted-printable/i.test(header('Content-Transfer-Encoding')) ? decodeQuotedPrintable(body)
    : /base64/i.test(header('Content-Transfer-Encoding')) ? Buffer.from(body, 'base64').toString('utf8') : body;
  const subject = header('Subject').replace(/=\?utf-8\?Q\?(.*?)\?=/gi, (_m, q: string) => decodeQuotedPrintable(q.replace(/_/g, ' ')));
  return { from, to, subject, text: text.replace(/\r\n/g, '\n'), raw };
}

export async function startSmtpServer(dir: string): Promise<TestSmtpServer> {
  const ca = await makeCa('CN=Test Mail CA');
  const certificate = await issue(ca, 'CN=localhost', { serverNames: ['localhost', '127.0.0.1'] });
  const caFile = join(dir, 'mail-ca.pem');
  writeFileSync(caFile, ca.certificatePem);
  const user = 'svc-mailer';
  const password = 'smtp-password-not-for-logs';
  const received: ReceivedMail[] = [];
  const waiting: Array<{ to: string; resolve: (mail: ReceivedMail) => void }> = [];
  const server = new SMTPServer({
    secure: false, key: certificate.keyPem, cert: certificate.certificatePem,
    authMethods: ['PLAIN', 'LOGIN'], logger: false, disableReverseLookup: true,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) return callback(null, { user });
      return callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((r) => r.address);
        const mail = parse(Buffer.concat(chunks).toString('latin1'), session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to);
        received.push(mail);
        for (const w of [...waiting]) {
          if (to.some((address) => address.toLowerCase() === w.to.toLowerCase())) {
            waiting.splice(waiting.indexOf(w), 1);
            w.resolve(mail);
          }
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port, caFile, user, password, received,
    next(to, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no mail to ${to} within ${timeoutMs} ms`)), timeoutMs);
        waiting.push({ to, resolve: (mail) => { clearTimeout(timer); resolve(mail); } });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
