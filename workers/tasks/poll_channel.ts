/** poll_channel: fetches new events of one channel that cannot push, stores them, keeps the offset. */
import { z } from 'zod';
import { loadChannel, updateChannelState } from '../../core/commands/channel-runtime.ts';
import { storeInboundEvents } from '../../core/commands/inbound.ts';
import { connectorFor } from '../../connectors/index.ts';
import { connectorContext } from '../../connectors/context.ts';
import { defineTask } from '../task.ts';

export default defineTask({
  name: 'poll_channel',
  payload: z.object({ channel_id: z.uuid() }),
  run: async ({ channel_id }, deps) => {
    const channel = await loadChannel(deps.db, deps.config.encryptionKey, channel_id);
    if (!channel || !channel.is_active) return;
    const connector = connectorFor(channel.type);
    if (!connector?.poll) return;
    const { events, state } = await connector.poll(channel.config, channel.state, connectorContext(deps.config));
    // Events and the new offset commit together: a crash re-polls, and the unique keys drop repeats.
    await deps.db.transaction(async (tx) => {
      await storeInboundEvents(tx, channel, events, null);
      await updateChannelState(tx, channel.id, state);
    });
  },
});
