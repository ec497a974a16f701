/**
 * poll_channels (crontab, every minute): one `poll_channel` job per channel that cannot push —
 * those whose registration chose `state.mode = 'polling'` (Telegram without an https
 * PUBLIC_URL, e-mail with IMAP settings), except those in `error` (the platform refused them: polling
 * resumes when the channel is saved and registers again). Each channel's polls share a job
 * key and a queue named after the channel, so they never overlap or pile up.
 */
import { z } from 'zod';
import { sql } from '../../core/adapters/postgres/db.ts';
import { enqueue } from '../../core/jobs.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'poll_channels',
  run: async (_payload, deps) => {
    const rows = await deps.db.any(sql.type(z.object({ id: z.string() }))`
      select id from channels
      where is_active and state->>'mode' = 'polling' and status <> 'error'`);
    for (const { id } of rows) {
      await enqueue(deps.db, 'poll_channel', { channel_id: id });
    }
  },
});
