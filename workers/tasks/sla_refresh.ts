/** sla_refresh: one conversation's SLA policy and due times worked out again, breaches recorded once (core/commands/sla.ts). */
import { runCommand } from '../../core/commands/run-command.ts';
import { refreshSla } from '../../core/commands/sla.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'sla_refresh',
  run: async ({ conversation_id }, deps) => {
    await runCommand(deps, (tx) => refreshSla(tx, conversation_id));
  },
});
