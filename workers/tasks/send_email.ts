/** send_email: system mail (invitations, verification links). */
import { createMailer } from '../../core/adapters/mailer.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'send_email',
  run: async (payload, deps) => {
    const mailer = createMailer(deps.config.SMTP_URL, deps.config.MAIL_FROM, deps.logger);
    await mailer.send(payload);
  },
});
