/** System mail through SMTP_URL (core/adapters/mailer.ts): nodemailer loads with the first mail and sends every one. */
import test from 'ava';
import { pino } from 'pino';
import { createMailer } from '../core/adapters/mailer.ts';
import { startFakeSmtp, type FakeSmtp } from './fakes/smtp.ts';

let smtp: FakeSmtp;
test.before(async () => {
  smtp = await startFakeSmtp({ user: 'parley@mail.test', password: 's3cret pw' });
});
test.after.always(async () => {
  await smtp?.close();
});

test('with SMTP_URL each system mail reaches the SMTP server, authenticated, from MAIL_FROM', async (t) => {
  const url = `smtp://${encodeURIComponent('parley@mail.test')}:${encodeURIComponent('s3cret pw')}@127.0.0.1:${smtp.port}`;
  const mailer = createMailer(url, 'Parley <noreply@mail.test>', pino({ level: 'silent' }));
  await mailer.send({ to: 'ana@customer.test', subject: 'Verify your email', text: 'Open https://parley.test/verify?token=abc' });
  await mailer.send({ to: 'ben@customer.test', subject: 'You are invited', text: 'Join Acme' });
  t.deepEqual(
    smtp.messages.map((m) => ({ from: m.from, to: m.to, user: m.user })),
    [
      { from: 'noreply@mail.test', to: ['ana@customer.test'], user: 'parley@mail.test' },
      { from: 'noreply@mail.test', to: ['ben@customer.test'], user: 'parley@mail.test' },
    ],
  );
  t.regex(smtp.messages[0].raw.toString(), /^Subject: Verify your email$/m);
  t.regex(smtp.messages[1].raw.toString(), /Join Acme/);
});
