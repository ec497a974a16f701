/**
 * The AI agent: a customer message, in a business that auto-replies (the setting on and in its
 * plan), in a conversation no human has and that was not handed over, gets its ai_reply job
 * (key `ai:<conversation id>`: a burst answered once, from the newest message;
 * workers/tasks/ai_reply.ts decides and answers or hands over).
 */
import { z } from 'zod';
import { sql } from '../adapters/postgres/db.ts';
import { enqueue } from '../jobs.ts';
import { defineSubscriber } from '../events/subscriber.ts';

const dueRow = z.object({ message_id: z.string(), conversation_id: z.string() });

export default defineSubscriber({
  name: 'ai_agent',
  handle: async (tx, events) => {
    const ids = events.map((e) => (e.data as { message_id: string }).message_id);
    const due = await tx.any(sql.type(dueRow)`
      select distinct on (m.conversation_id) m.id as message_id, m.conversation_id
      from messages m
      join businesses b on b.id = m.business_id and b.ai_auto_reply_enabled
      join plans p on p.name = b.plan and p.ai_auto_reply
      join conversations c on c.id = m.conversation_id and c.assignee_id is null and c.handoff_requested_at is null
      where m.id = any(${sql.array(ids, 'uuid')}) and m.sender_type = 'customer' and not m.private
      order by m.conversation_id, m.created_at desc, m.id desc`);
    for (const row of due) await enqueue(tx, 'ai_reply', { message_id: row.message_id }, { conversationId: row.conversation_id });
  },
});
