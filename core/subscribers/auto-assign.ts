/**
 * Auto-assignment: whatever may change who waits or who has room (a conversation opened,
 * reopened, resolved, unassigned or woken, a handoff, a member going live or removed, the
 * settings) arms the business's auto_assign job when auto-assignment is on
 * (core/commands/auto-assign.ts). Armed after the change committed, so the run sees it; a run
 * already going makes room for a next one (graphile-worker moves the key off a running job).
 */
import { z } from 'zod';
import { sql } from '../adapters/postgres/db.ts';
import { enqueue } from '../jobs.ts';
import { defineSubscriber, distinct } from '../events/subscriber.ts';
import { autoAssignment } from '../commands/auto-assign.ts';

const businessRow = z.object({ business_id: z.string() });

export default defineSubscriber({
  name: 'auto_assign',
  handle: async (tx, events) => {
    // Its own assignments change nothing it waits for.
    const own = (e: (typeof events)[number]) => e.actor_type === 'system' && e.actor_name === autoAssignment.name;
    const businessIds = distinct(events, (e) => (own(e) ? null : e.business_id));
    if (!businessIds.length) return;
    const on = await tx.any(sql.type(businessRow)`
      select business_id from assignment_settings where business_id = any(${sql.array(businessIds, 'uuid')}) and enabled`);
    for (const { business_id } of on) await enqueue(tx, 'auto_assign', { business_id });
  },
});
