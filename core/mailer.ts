/**
 * System mail (invitations, verification links). With SMTP_URL it goes out through
 * nodemailer; without it, the mail is written to the log so a local install still works.
 */
import nodemailer from 'nodemailer';
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
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    send: async (mail) => {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}
