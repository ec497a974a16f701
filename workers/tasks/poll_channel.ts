/**
 * poll_channel: fetches new events of one channel that cannot push, stores them, keeps the offset.
 * A refusal by the platform (a changed mailbox password, a revoked bot token) puts the channel in
 * `error` with the platform's reason, and polling stops until the channel is saved again (which
 * registers it anew): retrying a refused login every minute gets mail accounts locked.
 */
import { loadChannel, setChannelStatus, updateChannelState } from '../../core/commands/channel-runtime.ts';
import { storeInboundEvents } from '../../core/commands/inbound.ts';
import { connectorFor } from '../../connectors/index.ts';
import { connectorContext } from '../../core/domain/channels/connector-context.ts';
import { ConnectorError, type PollResult } from '../../connectors/types.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'poll_channel',
  run: async ({ channel_id }, deps) => {
    const channel = await loadChannel(deps.db, deps.config.encryptionKey, channel_id);
    if (!channel || !channel.is_active) return;
    const connector = connectorFor(channel.type);
    if (!connector.poll) return;
    let result: PollResult;
    try {
      result = await connector.poll(channel.config, channel.state, connectorContext(deps.config, connector));
    } catch (error) {
      if (!(error instanceof ConnectorError && error.kind === 'permanent')) throw error;
      deps.events.publish(await setChannelStatus(deps.db, channel, { status: 'error', lastError: error.message }));
      return;
    }
    const { events, state } = result;
    // Events and the new offset commit together: a crash re-polls, and the unique keys drop repeats.
    await deps.db.transaction(async (tx) => {
      await storeInboundEvents(tx, channel, events, null);
      await updateChannelState(tx, channel.id, state);
    });
  },
});
