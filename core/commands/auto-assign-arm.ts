/**
 * Arming auto-assignment: the one call every write that may change who waits or who has room
 * makes (core/commands/auto-assign.ts says which and why). Apart from the job's code so the
 * conversation and team commands can arm it without importing what imports them.
 */
import { sql, type Queryable } from '../adapters/postgres/db.ts';

/** Advisory lock class of arming (taken shared by auto_assign_arm, migration 0086; exclusive in the job's last look). */
export const assignLocks = { arm: 20_205 } as const;

/** Arms the business's auto_assign job when auto-assignment is on (a no-op otherwise). */
export async function armAutoAssign(q: Queryable, businessId: string): Promise<void> {
  await q.query(sql.unsafe`select auto_assign_arm(${businessId})`);
}
