/** send_email: system mail (invitations, verification links). */
import { z } from 'zod';
import { createMailer } from '../../core/mailer.ts';
import { defineTask } from '../task.ts';

export const sendEmailPayload = z.object({
  to: z.email(),
  subject: z.string().min(1),
  text: z.string(),
});

export default defineTask({
  name: 'send_email',
  payload: sendEmailPayload,
  run: async (payload, deps) => {
    const mailer = createMailer(deps.config.SMTP_URL, deps.config.MAIL_FROM, deps.logger);
    await mailer.send(payload);
  },
});
