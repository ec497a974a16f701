/**
 * The out-of-hours reply: a customer message while business hours are on arms its conversation's
 * out_of_hours_reply job (core/commands/business-hours.ts decides and sends), unless the
 * conversation's last decision still holds under the current settings. One job per conversation
 * (key `hours:<conversation id>`), for its newest message of the batch.
 */
import { z } from 'zod';
import { sql } from '../adapters/postgres/db.ts';
import { enqueue } from '../jobs.ts';
import { defineSubscriber } from '../events/subscriber.ts';

const dueRow = z.object({ message_id: z.string(), conversation_id: z.string() });

export default defineSubscriber({
  name: 'out_of_hours',
  handle: async (tx, events) => {
    const ids = events.map((e) => (e.data as { message_id: string }).message_id);
    const due = await tx.any(sql.type(dueRow)`
      select distinct on (m.conversation_id) m.id as message_id, m.conversation_id
      from messages m
      join business_hours h on h.business_id = m.business_id and h.enabled
      join conversations c on c.id = m.conversation_id
      where m.id = any(${sql.array(ids, 'uuid')}) and m.sender_type = 'customer' and not m.private
        and not coalesce(c.hours_checked_until > clock_timestamp() and c.hours_checked_at >= h.updated_at, false)
      order by m.conversation_id, m.created_at desc, m.id desc`);
    for (const row of due) await enqueue(tx, 'out_of_hours_reply', { message_id: row.message_id }, { conversationId: row.conversation_id });
  },
});
