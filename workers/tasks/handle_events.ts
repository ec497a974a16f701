/** handle_events: the subscribers on a batch of domain events (core/events/pipeline.ts). */
import { handleEvents } from '../../core/events/pipeline.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'handle_events',
  run: async ({ event_ids }, deps) => {
    await handleEvents(deps, event_ids);
  },
});
