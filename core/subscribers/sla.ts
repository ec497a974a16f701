/**
 * SLA clocks: a conversation's policy and due times are worked out again (the sla_refresh job,
 * core/commands/sla.ts) when a message arrives or is sent, its status or labels change, or it
 * opens, in a business with an SLA policy; every open or pending conversation of the business
 * (and any still under a policy) when its policies or business hours change.
 */
import { z } from 'zod';
import { sql } from '../adapters/postgres/db.ts';
import { enqueue } from '../jobs.ts';
import { defineSubscriber, distinct } from '../events/subscriber.ts';

const idRow = z.object({ id: z.string() });
/** Settings sections whose change moves due times. */
const rearming = new Set(['sla', 'business_hours']);

export default defineSubscriber({
  name: 'sla',
  handle: async (tx, events) => {
    const settings = events.filter((e) => e.type === 'settings.changed');
    const rearm = distinct(settings, (e) => (rearming.has((e.data as { section: string }).section) ? e.business_id : null));
    if (rearm.length) {
      // One statement for the whole business: jobs keyed by conversation (a waiting one is replaced).
      await tx.query(sql.unsafe`
        select graphile_worker.add_job(identifier => 'sla_refresh', payload => json_build_object('conversation_id', c.id::text), job_key => 'sla:' || c.id::text)
        from conversations c
        where c.business_id = any(${sql.array(rearm, 'uuid')}) and (c.status in ('open', 'pending') or c.sla_policy_id is not null)`);
    }
    const conversationIds = distinct(events, (e) => (e.type !== 'settings.changed' && !rearm.includes(e.business_id) ? e.conversation_id : null));
    if (!conversationIds.length) return;
    const due = await tx.any(sql.type(idRow)`
      select c.id from conversations c
      where c.id = any(${sql.array(conversationIds, 'uuid')}) and exists (select 1 from sla_policies p where p.business_id = c.business_id)`);
    for (const { id } of due) await enqueue(tx, 'sla_refresh', { conversation_id: id });
  },
});
