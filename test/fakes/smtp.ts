/**
 * A fake SMTP submission server (smtp-server) on 127.0.0.1 without TLS. Like a real submission
 * server it requires AUTH with the right user and password before MAIL FROM; it records every
 * accepted message's envelope and raw bytes, and can refuse the next messages with a reply code.
 *
 *   const smtp = await startFakeSmtp({ user: 'support@acme.test', password: 'pw' });
 *   connector.send({ ...config, smtp_host: '127.0.0.1', smtp_port: String(smtp.port) }, message, context);
 *   smtp.messages[0].raw; smtp.rejectNext(1, 550, '5.1.1 No such user');
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export type FakeSmtpMessage = { from: string; to: string[]; user: string | undefined; raw: Buffer };

export type FakeSmtp = {
  port: number;
  messages: FakeSmtpMessage[];
  /** Logins tried: user and whether they succeeded. */
  logins: { user: string; ok: boolean }[];
  /** The next `count` messages are refused after DATA with this reply code and text. */
  rejectNext: (count: number, responseCode: number, text: string) => void;
  close: () => Promise<void>;
};

export async function startFakeSmtp(options: { user: string; password: string }): Promise<FakeSmtp> {
  const messages: FakeSmtpMessage[] = [];
  const logins: FakeSmtp['logins'] = [];
  const rejections: { responseCode: number; text: string }[] = [];

  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, callback) {
      const ok = auth.username === options.user && auth.password === options.password;
      logins.push({ user: auth.username ?? '', ok });
      if (!ok) return callback(new Error('5.7.8 Authentication credentials invalid'));
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const rejection = rejections.shift();
        if (rejection) {
          const error = new Error(rejection.text) as Error & { responseCode: number };
          error.responseCode = rejection.responseCode;
          return callback(error);
        }
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          user: typeof session.user === 'string' ? session.user : undefined,
          raw: Buffer.concat(chunks),
        });
        callback();
      });
    },
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = (server as unknown as { server: { address: () => AddressInfo } }).server.address();
  return {
    port,
    messages,
    logins,
    rejectNext(count, responseCode, text) {
      for (let i = 0; i < count; i++) rejections.push({ responseCode, text });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
