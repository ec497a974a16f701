/**
 * CSAT: a conversation resolved, in a business with CSAT on, and never rated, gets its
 * csat_request job (core/commands/csat.ts), key `csat:<conversation id>`: resolved again while
 * its question is unanswered, it is asked again (the new question replaces the old one). Read as
 * the conversation is now: one reopened before this ran is not asked.
 */
import { z } from 'zod';
import { sql } from '../adapters/postgres/db.ts';
import { enqueue } from '../jobs.ts';
import { defineSubscriber, distinct } from '../events/subscriber.ts';

const idRow = z.object({ id: z.string() });

export default defineSubscriber({
  name: 'csat',
  handle: async (tx, events) => {
    const ids = distinct(events, (e) => e.conversation_id);
    if (!ids.length) return;
    const due = await tx.any(sql.type(idRow)`
      select c.id from conversations c
      join csat_settings s on s.business_id = c.business_id and s.enabled
      where c.id = any(${sql.array(ids, 'uuid')}) and c.status = 'resolved'
        and not exists (select 1 from csat_surveys v where v.business_id = c.business_id and v.conversation_id = c.id and v.rating is not null)`);
    for (const { id } of due) await enqueue(tx, 'csat_request', { conversation_id: id });
  },
});
