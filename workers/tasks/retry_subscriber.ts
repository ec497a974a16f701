/** retry_subscriber: one subscriber again on the events whose batch it failed (core/events/pipeline.ts). */
import { retrySubscriber } from '../../core/events/pipeline.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'retry_subscriber',
  run: async ({ subscriber, event_ids }, deps) => {
    await retrySubscriber(deps, subscriber, event_ids);
  },
});
