/**
 * The business starts a WhatsApp conversation with a template (issue 19 item 4): POST
 * /conversations with a WhatsApp channel, the customer's phone number and an approved template.
 *
 * The customer is the channel's customer with that WhatsApp id (the number's digits, as Meta's
 * webhooks name them: `wa_id`), created when new, so the customer's answer is threaded by
 * inbound_apply_message into the conversation the template went out in: the customer's latest
 * conversation on the channel unless it is closed (then a new one is opened, as inbound does).
 * The same advisory lock as inbound_apply_message (channel id + WhatsApp id) keeps a template
 * and the customer's message arriving at once from opening two conversations.
 *
 * The template goes out as the agent's reply (sendMessage): counted against the month (403 at the
 * limit, and then nothing is created), queued and delivered by the conversation's delivery drain.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest, validationError } from '../errors.ts';
import { conversationCreated, type PendingEvent } from '../events/live.ts';
import { checkTemplate, type TemplateInput } from '../domain/whatsapp-templates.ts';
import { sendMessage } from './messages.ts';

export type StartWithTemplateInput = {
  businessId: string;
  /** The agent sending the template. */
  createdBy: string;
  channelId: string;
  /** E.164 without the plus: digits only (the route normalizes). */
  phoneDigits: string;
  template: TemplateInput;
};

const channelRow = z.object({ id: z.string(), type: z.string() });
const customerRow = z.object({ id: z.string(), merged_into: z.string().nullable(), erasing_at: z.string().nullable() });
const conversationRow = z.object({ id: z.string(), status: z.string() });

/**
 * The customer with this WhatsApp id on the channel, created when new: named by the number until
 * their first message brings their WhatsApp profile name (inbound_apply_message replaces a name
 * nobody edited). One merged away leads to the customer it was merged into.
 */
async function customerFor(tx: Queryable, input: StartWithTemplateInput): Promise<string> {
  const inserted = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
    insert into customers (business_id, channel_id, platform_user_id, name, phone)
    values (${input.businessId}, ${input.channelId}, ${input.phoneDigits}, ${`+${input.phoneDigits}`}, ${`+${input.phoneDigits}`})
    on conflict (channel_id, platform_user_id, business_id) where platform_user_id is not null do nothing
    returning id`);
  if (inserted) return inserted.id;
  let customer = await tx.one(sql.type(customerRow)`
    select id, merged_into, erasing_at from customers
    where channel_id = ${input.channelId} and platform_user_id = ${input.phoneDigits} and business_id = ${input.businessId}
    for share`);
  // Merges point at a kept customer (never a chain, core/commands/customers.ts), followed a few times for safety.
  for (let hops = 0; customer.merged_into && hops < 5; hops++) {
    customer = await tx.one(sql.type(customerRow)`
      select id, merged_into, erasing_at from customers where id = ${customer.merged_into} and business_id = ${input.businessId} for share`);
  }
  if (customer.erasing_at || customer.merged_into) throw badRequest('The customer with this number is being erased');
  return customer.id;
}

export async function startConversationWithTemplate(tx: Queryable, input: StartWithTemplateInput): Promise<{ conversationId: string; events: PendingEvent[] }> {
  const channel = await tx.maybeOne(sql.type(channelRow)`
    select id, type from channels where id = ${input.channelId} and business_id = ${input.businessId} and is_active`);
  if (!channel) throw badRequest('Channel not found');
  if (channel.type !== 'whatsapp') {
    throw validationError([
      { loc: ['body', 'channel_id'], msg: 'A conversation can be started with a template on a WhatsApp channel only', type: 'value_error' },
    ]);
  }
  const content = await checkTemplate(tx, { businessId: input.businessId, channelId: channel.id, template: input.template });

  // inbound_apply_message's lock (sql/schema.sql): one conversation for the template and the customer's answer.
  await tx.query(sql.unsafe`select pg_advisory_xact_lock(hashtext(${`${channel.id}:${input.phoneDigits}`}))`);
  const customerId = await customerFor(tx, input);
  const latest = await tx.maybeOne(sql.type(conversationRow)`
    select id, status from conversations
    where customer_id = ${customerId} and channel_id = ${channel.id} and business_id = ${input.businessId}
    order by updated_at desc, id desc
    limit 1`);
  const events: PendingEvent[] = [];
  let conversationId: string;
  if (latest && latest.status !== 'closed') {
    conversationId = latest.id;
  } else {
    const created = await tx.one(sql.type(z.object({ id: z.string() }))`
      insert into conversations (business_id, customer_id, channel_id, channel_type, status)
      values (${input.businessId}, ${customerId}, ${channel.id}, 'whatsapp', 'open')
      returning id`);
    conversationId = created.id;
    events.push(conversationCreated(input.businessId, conversationId));
  }
  const sent = await sendMessage(tx, {
    businessId: input.businessId,
    conversationId,
    sender: { type: 'agent', userId: input.createdBy },
    content,
    attachments: [],
    template: input.template,
    checkReplyWindow: true,
  });
  events.push(...sent.events);
  return { conversationId, events };
}
