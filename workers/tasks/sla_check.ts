/**
 * sla_check (crontab, every minute): the conversations whose soonest unrecorded SLA due time has
 * passed, each refreshed in its own transaction, which records its breaches once and publishes
 * `sla_breached` for each (core/commands/sla.ts). Two checks at once wait on the row lock; the
 * second finds the breach recorded.
 */
import { runCommand } from '../../core/commands/run-command.ts';
import { dueForCheck, refreshSla } from '../../core/commands/sla.ts';
import { catalogueTask } from '../task.ts';

const BATCH = 200;

export default catalogueTask({
  name: 'sla_check',
  run: async (_payload, deps) => {
    await checkSlaBreaches(deps);
  },
});

/** Every conversation due for a check, batch by batch (also what tests call). */
export async function checkSlaBreaches(deps: Parameters<typeof runCommand>[0]): Promise<number> {
  let checked = 0;
  for (let round = 0; round < 50; round++) {
    const ids = await dueForCheck(deps.db, BATCH);
    for (const id of ids) await runCommand(deps, (tx) => refreshSla(tx, id));
    checked += ids.length;
    if (ids.length < BATCH) break;
  }
  return checked;
}
