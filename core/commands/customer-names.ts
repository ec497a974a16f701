/**
 * Names for customers whose messages carry none. An Instagram message names its sender by id
 * only (IGSID); the platform gives their name through its User Profile API once they have
 * written (connectors' `customerName`). When a conversation of such a customer opens, the
 * inbound drain enqueues `fetch_customer_name`; the job asks once and names the customer unless
 * a member has named them meanwhile (or their messages did). The inbox and the customer panel
 * follow through `customer_updated`. A platform that refuses (no consent, a revoked token) leaves
 * the customer as they were; an unreachable one is retried a few times.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import type { Deps } from '../deps.ts';
import { connectorFor } from '../../connectors/index.ts';
import { ConnectorError } from '../../connectors/types.ts';
import { connectorContext } from '../domain/channels/connector-context.ts';
import { liveEvent } from '../events/catalogue.ts';
import { enqueue } from '../jobs.ts';
import { customerById } from '../reads/customers.ts';
import { loadChannel } from './channel-runtime.ts';
import { runCommand } from './run-command.ts';

/** For the conversations just opened on `channel`: a name job for each of their customers who has none. */
export async function enqueueCustomerNames(tx: Queryable, channel: { id: string; type: string }, openedConversationIds: string[]): Promise<void> {
  if (openedConversationIds.length === 0 || !connectorFor(channel.type).customerName) return;
  const unnamed = await tx.anyFirst(sql.type(z.object({ id: z.string() }))`
    select distinct cu.id from conversations c join customers cu on cu.id = c.customer_id
    where c.id = any(${sql.array(openedConversationIds, 'uuid')}) and c.channel_id = ${channel.id}
      and cu.name = '' and cu.edited_at is null and cu.platform_user_id is not null`);
  for (const id of unnamed) await enqueue(tx, 'fetch_customer_name', { customer_id: id });
}

const unnamedRow = z.object({ business_id: z.string(), channel_id: z.string(), platform_user_id: z.string() });

export type NameOutcome = 'named' | 'none' | 'skipped';

/** Asks the platform for the customer's name and stores it (see the header). Throws on a transient failure. */
export async function fetchCustomerName(deps: Deps, customerId: string): Promise<NameOutcome> {
  const customer = await deps.db.maybeOne(sql.type(unnamedRow)`
    select business_id, channel_id, platform_user_id from customers
    where id = ${customerId} and name = '' and edited_at is null and merged_into is null and erasing_at is null
      and channel_id is not null and platform_user_id is not null`);
  if (!customer) return 'skipped';
  const channel = await loadChannel(deps.db, deps.config.encryptionKey, customer.channel_id);
  const connector = channel ? connectorFor(channel.type) : null;
  if (!channel || !connector?.customerName) return 'skipped';
  let name: string | null;
  try {
    name = await connector.customerName(channel.config, customer.platform_user_id, connectorContext(deps.config, connector));
  } catch (error) {
    if (error instanceof ConnectorError && error.kind === 'permanent') {
      deps.logger.info({ customer_id: customerId, reason: error.message }, 'customer name not available from the platform');
      return 'none';
    }
    throw error;
  }
  if (!name) return 'none';
  const named = await runCommand(deps, async (tx) => {
    // Only while still unnamed: a member's edit, or a name the messages brought, wins.
    const row = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
      update customers set name = ${name.slice(0, 200)}, updated_at = now()
      where id = ${customerId} and name = '' and edited_at is null
      returning id`);
    if (!row) return { named: false };
    const presented = await customerById(tx, customerId);
    const at = new Date().toISOString();
    return { named: true, events: [liveEvent('customer_updated', { business_id: customer.business_id, customer_id: customerId, customer: presented, at })] };
  });
  return named.named ? 'named' : 'skipped';
}
