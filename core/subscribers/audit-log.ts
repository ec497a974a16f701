/**
 * The audit log of settings: every settings change (settings.changed: auto-assignment, team
 * visibility, business hours, SLA, CSAT, AI, teams, the widget, the plan…) becomes an audit_log
 * row `settings.updated` with its actor and the section's values before and after. The row
 * commits with the batch's mark as handled, so a retry never writes it twice.
 */
import { sql } from '../adapters/postgres/db.ts';
import { defineSubscriber } from '../events/subscriber.ts';

export default defineSubscriber({
  name: 'audit_log',
  handle: async (tx, events) => {
    const rows = events.map((e) => {
      const data = e.data as { section: string; target_id?: string | null; before: unknown; after: unknown };
      return {
        business_id: e.business_id,
        actor_type: e.actor_type === 'member' ? 'user' : e.actor_type === 'api_key' ? 'api_key' : 'system',
        actor_id: e.actor_type === 'member' || e.actor_type === 'api_key' ? e.actor_id : null,
        actor_name: e.actor_name ?? (e.actor_type === 'system' ? 'Parley' : e.actor_type),
        target_id: data.target_id ?? null,
        details: { section: data.section, before: data.before ?? null, after: data.after ?? null },
        created_at: e.created_at,
      };
    });
    // An API key's row names its maker as well (actor_user_id), as the audit log of other actions does.
    await tx.query(sql.unsafe`
      insert into audit_log (business_id, actor_type, actor_user_id, actor_api_key_id, actor_name, action, target_type, target_id, details, created_at)
      select r.business_id, r.actor_type,
             case r.actor_type when 'user' then r.actor_id when 'api_key' then (select k.created_by from api_keys k where k.id = r.actor_id) end,
             case when r.actor_type = 'api_key' then r.actor_id end,
             r.actor_name, 'settings.updated', 'business', r.target_id, r.details, r.created_at
      from jsonb_to_recordset(${sql.jsonb(rows as never)}) as r(business_id uuid, actor_type text, actor_id uuid, actor_name text, target_id text, details jsonb, created_at timestamptz)`);
  },
});
