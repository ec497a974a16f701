/**
 * What an e-mail reply or forward carries beyond its text (docs/decisions.md#e-mail-in-depth):
 * who else gets it (Cc carried over from the customer's latest mail unless the agent says
 * otherwise, Bcc), and the signature (the agent's own, then the channel's). Resolved when the
 * reply is stored, so `messages.email` records what was sent and a later edit of a signature
 * does not change a reply already queued.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest, notFound } from '../errors.ts';
import { loadChannel } from '../commands/channel-runtime.ts';
import type { EmailAddress } from '../../connectors/types.ts';

/** Cc and Bcc each hold at most this many addresses; a forward goes to at most this many. */
export const MAX_COPIES = 10;
/** A signature's length (the channel's config field and a member's setting). */
export const MAX_SIGNATURE = 2000;

export type EmailReplyContext = {
  /** The support address replies come from (the channel's `address`). */
  address: string;
  /** The customer the reply goes to. */
  customer: EmailAddress | null;
  /** The other people on the customer's latest mail (its To and Cc, less the support address and the customer). */
  threadCc: EmailAddress[];
  channelSignature: string | null;
};

const contextRow = z.object({
  channel_type: z.string(),
  channel_id: z.string().nullable(),
  customer_email: z.string().nullable(),
  customer_name: z.string().nullable(),
  last_email: z.record(z.string(), z.unknown()).nullable(),
});

const addressList = (value: unknown): EmailAddress[] =>
  Array.isArray(value)
    ? value
        .filter((a): a is EmailAddress => typeof a?.address === 'string')
        .map((a) => (a.name ? { address: a.address, name: a.name } : { address: a.address }))
    : [];

/** Without repeats and without the addresses in `except` (all compared lower-cased). */
export function distinctAddresses(list: EmailAddress[], except: (string | null | undefined)[] = []): EmailAddress[] {
  const seen = new Set(except.filter((a): a is string => !!a).map((a) => a.toLowerCase()));
  const out: EmailAddress[] = [];
  for (const entry of list) {
    const address = entry.address.trim().toLowerCase();
    if (seen.has(address)) continue;
    seen.add(address);
    out.push(entry.name ? { address, name: entry.name } : { address });
  }
  return out;
}

/**
 * The e-mail side of a conversation of this business: null when it is not an e-mail
 * conversation (or its channel is gone); 404 when the conversation is not the business's.
 */
export async function emailReplyContext(q: Queryable, key: Uint8Array, businessId: string, conversationId: string): Promise<EmailReplyContext | null> {
  const row = await q.maybeOne(sql.type(contextRow)`
    select c.channel_type, c.channel_id, cu.email as customer_email, cu.name as customer_name,
           (select m.email from messages m
            where m.conversation_id = c.id and m.sender_type = 'customer' and m.email is not null
            order by m.created_at desc, m.id desc limit 1) as last_email
    from conversations c left join customers cu on cu.id = c.customer_id
    where c.id = ${conversationId} and c.business_id = ${businessId}`);
  if (!row) throw notFound('Conversation not found');
  if (row.channel_type !== 'email' || !row.channel_id) return null;
  const channel = await loadChannel(q, key, row.channel_id);
  if (!channel) return null;
  const address = (channel.config.address ?? '').toLowerCase();
  const customer = row.customer_email ? { address: row.customer_email.toLowerCase(), ...(row.customer_name ? { name: row.customer_name } : {}) } : null;
  const last = row.last_email ?? {};
  const threadCc = distinctAddresses([...addressList(last.to), ...addressList(last.cc)], [address, customer?.address]).slice(0, MAX_COPIES);
  return { address, customer, threadCc, channelSignature: channel.config.signature?.trim() || null };
}

/** The member's own e-mail signature, or null. */
export async function memberSignature(q: Queryable, businessId: string, userId: string): Promise<string | null> {
  const value = await q.maybeOneFirst(sql.type(z.object({ email_signature: z.string().nullable() }))`
    select email_signature from team_members where business_id = ${businessId} and user_id = ${userId} and is_active`);
  return value?.trim() || null;
}

/** The agent's signature, then the channel's, a blank line apart; null when neither is set. */
export function combinedSignature(agent: string | null, channel: string | null): string | null {
  const parts = [agent, channel].filter((p): p is string => !!p && p.trim() !== '');
  return parts.length ? parts.join('\n\n') : null;
}

/**
 * `messages.email` of an agent's reply: Cc (the given list, or the thread's when none is given),
 * Bcc, and the signature. Null for a conversation on another channel type, where Cc and Bcc are 400.
 */
export async function emailReplyFields(
  q: Queryable,
  key: Uint8Array,
  input: { businessId: string; conversationId: string; userId: string; cc?: string[]; bcc?: string[] },
): Promise<Record<string, unknown> | null> {
  const context = await emailReplyContext(q, key, input.businessId, input.conversationId);
  if (!context) {
    if ((input.cc?.length ?? 0) > 0 || (input.bcc?.length ?? 0) > 0) throw badRequest('Cc and Bcc are for e-mail conversations only');
    return null;
  }
  const except = [context.address, context.customer?.address];
  const cc =
    input.cc === undefined
      ? context.threadCc
      : distinctAddresses(
          input.cc.map((address) => ({ address })),
          except,
        );
  const bcc = distinctAddresses(
    (input.bcc ?? []).map((address) => ({ address })),
    [...except, ...cc.map((a) => a.address)],
  );
  const signature = combinedSignature(await memberSignature(q, input.businessId, input.userId), context.channelSignature);
  return { cc, bcc, signature };
}
