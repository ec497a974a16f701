/**
 * register_channel: tells the platform about a new or changed channel (Telegram setWebhook or
 * long polling, X user lookup, …) and records the outcome in `status` / `last_error`.
 * Runs after the channel row is committed, so creating a channel never waits on a platform.
 * A platform that is down (transient error) is retried; a refusal (bad token) is `error`.
 * Every failed attempt leaves its reason in `last_error` (status `pending` while retries
 * remain, `error` once the last one failed) so the owner sees why a channel does not connect.
 */
import { randomBytes } from 'node:crypto';
import { loadChannel, proveAccount, setChannelStatus } from '../../core/commands/channel-runtime.ts';
import { accountTakenReason, routingKeyHeldElsewhere } from '../../core/commands/channels.ts';
import { webhookUrl } from '../../core/domain/channels/webhook-urls.ts';
import { connectorFor } from '../../connectors/index.ts';
import { connectorContext } from '../../core/domain/channels/connector-context.ts';
import { ConnectorError, type RegisterResult } from '../../connectors/types.ts';
import type { Deps } from '../../core/deps.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'register_channel',
  run: async ({ channel_id }, deps, helpers) => {
    const channel = await loadChannel(deps.db, deps.config.encryptionKey, channel_id);
    if (!channel) return;
    const connector = connectorFor(channel.type);
    let result: RegisterResult;
    const webhook = webhookUrl(deps.config.publicUrl, channel.type, channel.id);
    if (!connector.register) {
      result = { status: 'connected' };
    } else {
      // One secret per channel, kept across re-registrations, echoed by the platform on every webhook.
      const secret = typeof channel.state.webhook_secret === 'string' ? channel.state.webhook_secret : randomBytes(24).toString('hex');
      try {
        result = await connector.register(
          channel.config,
          { webhookUrl: webhook ?? '', secret, state: channel.state },
          connectorContext(deps.config, connector),
        );
        result = { ...result, state: { webhook_secret: secret, ...result.state } };
      } catch (error) {
        if (error instanceof ConnectorError && error.kind === 'permanent') result = { status: 'error', last_error: error.message };
        else {
          await recordFailedAttempt(deps, channel, error, helpers.job);
          throw error;
        }
      }
    }
    // X routes its shared webhook by the account's user id, known only after registration.
    const found = result.state?.routing_key ?? result.state?.user_id;
    let routingKey = typeof found === 'string' ? found : null;
    // One channel per platform account: a second business's channel of an account is an error
    // (it would otherwise fail the unique index and retry, pending forever), and the account's
    // inbound keeps reaching only the channel that holds it.
    if (routingKey && (await routingKeyHeldElsewhere(deps.db, channel.type, routingKey, channel.id))) {
      result = { status: 'error', last_error: accountTakenReason(channel.type), state: result.state };
      routingKey = null;
    }
    // The platform accepted these credentials for the account: it is this channel's alone, and a
    // channel elsewhere that only named it (a public bot id, a number) is told why it is not.
    const account = routingKey ?? channel.routing_key;
    if (account && result.status === 'connected' && result.proven !== false && !connector.internal) {
      const claim = await proveAccount(deps.db, channel, account, displacedReason(channel.type));
      if (claim.proven) for (const event of claim.events) deps.events.publish(event);
      else {
        result = { status: 'error', last_error: accountTakenReason(channel.type), state: result.state };
        routingKey = null;
      }
    }
    const lastError = result.status === 'error' ? (result.last_error ?? 'Registration failed') : null;
    deps.events.publish(await setChannelStatus(deps.db, channel, { status: result.status, lastError, state: result.state, routingKey }));
  },
});

type ChannelRef = { id: string; business_id: string };

const displacedReason = (type: string) =>
  `Another business connected this ${connectorFor(type).label} account with credentials the platform accepted for it; ` +
  'this channel never proved it holds the account. Check the credentials, or remove the channel.';

/** A transient failure: its reason in last_error; `error` once no attempt is left (the job then shows in `parley jobs failed`). */
async function recordFailedAttempt(deps: Deps, channel: ChannelRef, error: unknown, job: { attempts: number; max_attempts: number }): Promise<void> {
  const lastAttempt = job.attempts >= job.max_attempts;
  const reason = error instanceof Error && error.message ? error.message : String(error);
  const status = lastAttempt ? 'error' : 'pending';
  const progress = lastAttempt ? `gave up after ${job.attempts} attempts` : `attempt ${job.attempts} of ${job.max_attempts}, retrying`;
  deps.events.publish(await setChannelStatus(deps.db, channel, { status, lastError: `${reason} (${progress})` }));
}
