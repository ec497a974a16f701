/**
 * System mail (invitations, verification links). With SMTP_URL it goes out through
 * nodemailer; without it, the mail is written to the log so a local install still works.
 * nodemailer (23 MiB of RSS) loads with the first mail, not with every worker.
 */
import type { Transporter } from 'nodemailer';
import type { Logger } from './logger.ts';

export type SystemMail = { to: string; subject: string; text: string };

export type Mailer = { send: (mail: SystemMail) => Promise<void> };

export function createMailer(smtpUrl: string | undefined, from: string, logger: Logger): Mailer {
  if (!smtpUrl) {
    return {
      send: async (mail) => {
        logger.info({ mail: { to: mail.to, subject: mail.subject, text: mail.text } }, 'SMTP_URL unset: system mail written to the log');
      },
    };
  }
  let transport: Transporter | undefined;
  return {
    send: async (mail) => {
      transport ??= (await import('nodemailer')).default.createTransport(smtpUrl);
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}
