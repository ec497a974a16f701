/** csat_request: a resolved conversation's customer is asked for a rating, once (core/commands/csat.ts). */
import { requestCsat } from '../../core/commands/csat.ts';
import { runCommand } from '../../core/commands/run-command.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'csat_request',
  run: async ({ conversation_id }, deps) => {
    await runCommand(deps, (tx) => requestCsat(tx, conversation_id));
  },
});
