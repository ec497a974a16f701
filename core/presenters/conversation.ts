/** conversations row (+ its customer and messages) → the spec's Conversation object. */
import { z } from '../../lib/zod.ts';
import { sql } from '../adapters/postgres/db.ts';
import { customerSchema, type Customer } from './customer.ts';
import { messageSchema, type Message } from './message.ts';
import { channelTypes } from '../../connectors/index.ts';
import { conversationCsatSchema, conversationSlaSchema, type ServiceLevels } from './service-levels.ts';

export const conversationStatuses = ['open', 'pending', 'resolved', 'closed'] as const;
/** How urgent a conversation is (`none` unless set; PUT …/priority). */
export const priorities = ['none', 'low', 'medium', 'high', 'urgent'] as const;
export type Priority = (typeof priorities)[number];
/** The channel types, from the connector registry. */
export { channelTypes } from '../../connectors/index.ts';

export const conversationRow = z.object({
  id: z.string(),
  business_id: z.string(),
  customer_id: z.string().nullable(),
  assignee_id: z.string().nullable(),
  status: z.enum(conversationStatuses),
  channel_type: z.string(),
  channel_id: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  first_response_at: z.string().nullable(),
  resolved_at: z.string().nullable(),
  closed_at: z.string().nullable(),
  assigned_at: z.string().nullable(),
  last_message_at: z.string().nullable(),
  handoff_reason: z.string().nullable(),
  reply_window_expires_at: z.string().nullable(),
  sla_policy_id: z.string().nullable(),
  sla_first_response_due_at: z.string().nullable(),
  sla_next_response_due_at: z.string().nullable(),
  sla_resolution_due_at: z.string().nullable(),
  sla_due_at: z.string().nullable(),
  snoozed_at: z.string().nullable(),
  snoozed_until: z.string().nullable(),
  priority: z.enum(priorities),
  team_id: z.string().nullable(),
});
export type ConversationRow = z.infer<typeof conversationRow>;

/** The columns conversationRow reads, for `select ${conversationColumns} from conversations c`. */
export const conversationColumns = sql.fragment`
  c.id, c.business_id, c.customer_id, c.assignee_id, c.status, c.channel_type, c.channel_id, c.created_at,
  c.updated_at, c.first_response_at, c.resolved_at, c.closed_at, c.assigned_at, c.last_message_at, c.handoff_reason, c.reply_window_expires_at,
  c.sla_policy_id, c.sla_first_response_due_at, c.sla_next_response_due_at, c.sla_resolution_due_at, c.sla_due_at,
  c.snoozed_at, c.snoozed_until, c.priority, c.team_id`;

const conversationFields = {
  id: z.uuid(),
  business_id: z.uuid(),
  customer_id: z.uuid().nullable().openapi({ description: "The customer's `uuid`" }),
  assignee_id: z.uuid().nullable().openapi({ description: "The assigned member's user id" }),
  status: z.enum(conversationStatuses),
  channel_type: z.string().openapi({ enum: [...channelTypes] }),
  channel_id: z.uuid().nullable().openapi({ description: 'Null once the channel has been deleted' }),
  created_at: z.string(),
  updated_at: z.string(),
  first_response_at: z.string().nullable().openapi({ description: 'Time of the first agent message (SLA)' }),
  resolved_at: z.string().nullable(),
  closed_at: z.string().nullable(),
  assigned_at: z.string().nullable(),
  last_message_at: z.string().nullable(),
  handoff_reason: z.string().nullable().openapi({ description: 'Why the AI agent asked for a human, when it did' }),
  reply_window_expires_at: z.string().nullable().openapi({
    description:
      "WhatsApp: when the 24-hour window for free-form replies closes (the customer's last message + 24 h); after it only templates can be sent. Null on other channels, or before the customer wrote",
  }),
  snoozed: z.boolean().openapi({
    description:
      'Set aside (PUT …/snooze) until `snoozed_until` or, when that is null, until the customer writes; snoozed conversations are listed with `?snoozed=true`. See docs/decisions.md#snooze-priority-bulk-and-scheduled-send',
  }),
  snoozed_until: z
    .string()
    .nullable()
    .openapi({ description: 'When a snoozed conversation wakes by itself; null when it waits for the customer (or is not snoozed)' }),
  priority: z.enum(priorities).openapi({ description: 'Set with PUT …/priority; filter with `?priority=`' }),
  team_id: z.uuid().nullable().openapi({
    description: "Its team (GET /api/v1/teams), set with PUT …/team or from its channel's `default_team_id`; null: none. Filter with `?team_id=`",
  }),
  // z.union, not .nullable(): zod-to-openapi 9 turns a nullable named schema into an allOf that refuses null
  // (and marks the component itself nullable); the union is `anyOf: [$ref, null]`.
  customer: z.union([customerSchema, z.null()]),
  labels: z.array(z.string()).openapi({ description: 'The names of its labels (GET /api/v1/labels), in alphabetical order' }),
  sla: z
    .union([conversationSlaSchema, z.null()])
    .openapi({ description: 'Its SLA due times and breaches; null when no SLA policy applies (GET /api/v1/sla-policies)' }),
  csat: z.union([conversationCsatSchema, z.null()]).openapi({ description: 'Its satisfaction survey; null when none was sent' }),
};

export const conversationSchema = z
  .object({ ...conversationFields, messages: z.array(messageSchema).openapi({ description: 'Oldest first' }) })
  .openapi('Conversation');
export type Conversation = z.infer<typeof conversationSchema>;

/** A list entry: the conversation with its customer and its latest message instead of all of them. */
export const conversationListItemSchema = z
  .object({
    ...conversationFields,
    last_message: z.union([messageSchema, z.null()]),
    preview_message: z.union([messageSchema, z.null()]).openapi({
      description:
        'The latest message a person wrote (the customer, an agent, the AI agent; not a private note, not an automatic message such as the away reply or the satisfaction question): what the inbox row shows. Null when there is none.',
    }),
  })
  .openapi('ConversationListItem');
export type ConversationListItem = z.infer<typeof conversationListItemSchema>;

const noServiceLevels: ServiceLevels = { sla: null, csat: null };

const base = (row: ConversationRow, customer: Customer | null, labels: string[], levels: ServiceLevels = noServiceLevels) => ({
  id: row.id,
  business_id: row.business_id,
  customer_id: row.customer_id,
  assignee_id: row.assignee_id,
  status: row.status,
  channel_type: row.channel_type,
  channel_id: row.channel_id,
  created_at: row.created_at,
  updated_at: row.updated_at,
  first_response_at: row.first_response_at,
  resolved_at: row.resolved_at,
  closed_at: row.closed_at,
  assigned_at: row.assigned_at,
  last_message_at: row.last_message_at,
  handoff_reason: row.handoff_reason,
  reply_window_expires_at: row.reply_window_expires_at,
  snoozed: row.snoozed_at !== null,
  snoozed_until: row.snoozed_until,
  priority: row.priority,
  team_id: row.team_id,
  customer,
  labels,
  sla: levels.sla,
  csat: levels.csat,
});

export const presentConversation = (
  row: ConversationRow,
  customer: Customer | null,
  labels: string[],
  messages: Message[],
  levels?: ServiceLevels,
): Conversation => ({
  ...base(row, customer, labels, levels),
  messages,
});

export const presentConversationListItem = (
  row: ConversationRow,
  customer: Customer | null,
  labels: string[],
  lastMessage: Message | null,
  levels?: ServiceLevels,
  previewMessage: Message | null = null,
): ConversationListItem => ({
  ...base(row, customer, labels, levels),
  last_message: lastMessage,
  preview_message: previewMessage,
});
