import { z } from '../../../lib/zod.ts';
import { intParam } from '../../validation.ts';
import { channelTypes, conversationStatuses, priorities } from '../../../core/presenters/conversation.ts';
import { MAX_SCHEDULE_DAYS } from '../../../core/commands/scheduled-replies.ts';
import { cursorParam } from '../../cursor.ts';

/** A time ahead (ISO 8601 with an offset), at most `maxDays` from now. */
export const futureTime = (maxDays: number, what: string) =>
  z.iso
    .datetime({ offset: true })
    .transform((value) => new Date(value))
    .refine((at) => at.getTime() > Date.now(), { message: `${what} must be in the future` })
    .refine((at) => at.getTime() <= Date.now() + maxDays * 86_400_000, { message: `${what} must be at most ${maxDays} days ahead` })
    .openapi({ type: 'string', format: 'date-time' });

/** Message text: surrounding whitespace trimmed, then 1–10,000 characters. */
const messageText = z.string().trim().min(1).max(10_000);

export const conversationParams = z.object({ conversation_id: z.uuid() });

export const assignParams = z.object({
  conversation_id: z.uuid(),
  agent_id: intParam({ type: 'int4' }).openapi({ description: "The member's `agent_number` (owner 1, then 2, 3 … in order of joining)" }),
});

export const templateInput = z.object({
  name: z.string().trim().min(1).max(512),
  language: z.string().trim().min(2).max(15).openapi({ description: "Meta's language code, e.g. `en_US`" }),
  parameters: z.array(z.string().trim().min(1).max(1024)).max(20).default([]).openapi({ description: 'Values for `{{1}}`, `{{2}}` … of the body, in order' }),
});

/** A phone number in E.164 (`+` optional, spaces, dots, dashes and brackets ignored): its digits. */
const e164Phone = z
  .string()
  .max(32)
  .transform((value) => value.replace(/[\s().-]/g, ''))
  .pipe(z.string().regex(/^\+?[1-9]\d{6,14}$/, 'Input should be a phone number in E.164 form, e.g. +4915123456789'))
  .transform((value) => value.replace(/^\+/, ''))
  .openapi({ type: 'string', example: '+4915123456789' });

export const createConversationBody = z
  .object({
    business_id: z.uuid().openapi({ description: "Must be the caller's business" }),
    customer_id: z.uuid().nullish().openapi({ description: 'A customer `uuid` of the business' }),
    channel_id: z.uuid().nullish().openapi({ description: 'An active channel of the business; default: its built-in webchat channel' }),
    initial_message: messageText.nullish().openapi({ description: 'Sent as an agent message by the caller (counts against the monthly limit)' }),
    phone: e164Phone
      .optional()
      .openapi({ description: "With `template`: the customer's WhatsApp number in E.164 (e.g. `+4915123456789`); the customer is found or created by it" }),
    template: templateInput.optional().openapi({
      description:
        'Start a WhatsApp conversation: an approved template of the `channel_id` WhatsApp channel (GET /api/v1/channels/{id}/templates), sent to `phone`. Not with `customer_id` or `initial_message`',
    }),
  })
  .superRefine((body, ctx) => {
    if (!body.template) {
      if (body.phone !== undefined) ctx.addIssue({ code: 'custom', path: ['phone'], message: '`phone` starts a WhatsApp conversation: give `template` too' });
      return;
    }
    if (body.phone === undefined) ctx.addIssue({ code: 'custom', path: ['phone'], message: "Field required with `template`: the customer's phone number" });
    if (!body.channel_id) ctx.addIssue({ code: 'custom', path: ['channel_id'], message: 'Field required with `template`: a WhatsApp channel' });
    if (body.customer_id) ctx.addIssue({ code: 'custom', path: ['customer_id'], message: 'Not with `template`: the customer is found by `phone`' });
    if (body.initial_message) ctx.addIssue({ code: 'custom', path: ['initial_message'], message: 'Not with `template`: the template is the first message' });
  });

export const attachmentInput = z.object({
  url: z.string().max(2048).openapi({ description: 'A URL returned by POST /api/v1/conversations/{conversation_id}/upload' }),
  filename: z.string().optional(),
  content_type: z.string().optional(),
  size: z.number().int().optional(),
});

/** An e-mail address as a reply's Cc/Bcc or a forward's recipient: trimmed, lower-cased, at most 254 characters. */
const emailAddress = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email())
  .transform((value) => value.toLowerCase())
  .openapi({ type: 'string', format: 'email', example: 'finance@customer.example' });

/** `images=1`: show the remote images of HTML mail (`html_sanitized`). */
export const imagesQuery = z.object({
  images: z
    .enum(['0', '1'])
    .optional()
    .openapi({ description: '`1`: `html_sanitized` of customer mail with its remote images armed (`src`); default they stay blocked (`data-parley-src`)' }),
});

export const sendMessageBody = z
  .object({
    cc: z.array(emailAddress).max(10).optional().openapi({
      description:
        "E-mail only: copies (at most 10). Omitted: the other recipients of the customer's latest mail (its To and Cc, less the support address) are copied again; `[]`: nobody",
    }),
    bcc: z.array(emailAddress).max(10).optional().openapi({ description: 'E-mail only: blind copies (at most 10)' }),
    content: messageText.optional().openapi({ description: 'Required unless `template` is given (then the rendered template body is stored)' }),
    attachments: z
      .array(attachmentInput)
      .max(10)
      .default([])
      .openapi({ description: 'Up to 10 uploads of this business; their stored name, type and size are used' }),
    template: templateInput
      .optional()
      .openapi({ description: 'WhatsApp only: an approved template of the channel (GET /api/v1/channels/{id}/templates), allowed outside the 24-hour window' }),
    private: z
      .boolean()
      .default(false)
      .openapi({ description: 'A private note for the team: never delivered nor shown to the customer, not counted, leaves the conversation as it was' }),
    mentions: z.array(z.uuid()).max(20).default([]).openapi({
      description: 'Members to mention (membership `id`s of GET /api/v1/team/members, active members of this business; at most 20). Only with `private: true`',
    }),
    send_at: futureTime(MAX_SCHEDULE_DAYS, 'send_at')
      .optional()
      .openapi({
        description: `Send later: a time ahead (at most ${MAX_SCHEDULE_DAYS} days). The reply is stored \`scheduled\` and goes out then; not with \`private\``,
      }),
  })
  .superRefine((body, ctx) => {
    if (body.template && body.attachments.length > 0)
      ctx.addIssue({ code: 'custom', path: ['attachments'], message: 'A template message takes no attachments' });
  });

/** One status, or several separated by commas (`open,pending`: everything waiting for the team). */
const isStatus = (value: string): value is (typeof conversationStatuses)[number] => (conversationStatuses as readonly string[]).includes(value);
const statusList = z
  .string()
  .transform((value) => value.split(',').map((s) => s.trim()))
  .refine((values) => values.every(isStatus), { message: `Input should be ${conversationStatuses.join(', ')}, or several separated by commas` })
  .transform((values) => values.filter(isStatus))
  .openapi({ type: 'string', description: 'A status (`open`, `pending`, `resolved`, `closed`), or several separated by commas, e.g. `open,pending`' });

/** One priority, or several separated by commas (`high,urgent`). */
const isPriority = (value: string): value is (typeof priorities)[number] => (priorities as readonly string[]).includes(value);
const priorityList = z
  .string()
  .transform((value) => value.split(',').map((s) => s.trim()))
  .refine((values) => values.every(isPriority), { message: `Input should be ${priorities.join(', ')}, or several separated by commas` })
  .transform((values) => values.filter(isPriority))
  .openapi({ type: 'string', description: 'A priority (`none`, `low`, `medium`, `high`, `urgent`), or several separated by commas, e.g. `high,urgent`' });

const booleanParam = z
  .enum(['true', 'false'])
  .transform((v) => v === 'true')
  .openapi({ type: 'string', enum: ['true', 'false'] });

export const listConversationsQuery = z.object({
  status: statusList.optional(),
  snoozed: booleanParam
    .optional()
    .openapi({ description: "`true`: only snoozed conversations (the Snoozed view); `false`: only awake ones (the inbox's open view); omitted: both" }),
  priority: priorityList.optional(),
  assignee_id: z
    .union([z.uuid(), z.literal('none')])
    .optional()
    .openapi({ type: 'string', description: "A member's user id, or `none` for unassigned conversations" }),
  channel_type: z.enum(channelTypes).optional(),
  team_id: z
    .union([z.uuid(), z.literal('none')])
    .optional()
    .openapi({ type: 'string', description: 'A team id (GET /api/v1/teams): only its conversations; `none`: conversations without a team' }),
  customer_id: z.uuid().optional().openapi({ description: "A customer `uuid`: only that customer's conversations" }),
  label: z
    .string()
    .trim()
    .min(1)
    .max(50)
    .optional()
    .openapi({ description: 'A label name (case-insensitive): only conversations carrying it (none when the business has no such label)' }),
  sla: z.enum(['breached', 'due_soon', 'due']).optional().openapi({
    description:
      'SLA: `breached` (a target not met is past due now), `due_soon` (the soonest unmet target is due within 60 minutes, not yet past), `due` (anything due)',
  }),
  sort: z.enum(['updated', 'sla']).default('updated').openapi({
    default: 'updated',
    description: '`updated`: most recently updated first; `sla`: soonest SLA due time first (the most overdue on top), only conversations with something due',
  }),
  limit: intParam({ min: 1, max: 200 }).default(50).openapi({ default: 50 }),
  before: cursorParam.optional(),
});

export const listMessagesQuery = z
  .object({
    limit: intParam({ min: 1, max: 200 }).default(50).openapi({ default: 50 }),
    before: cursorParam.optional(),
  })
  .extend(imagesQuery.shape);

export const forwardBody = z.object({
  to: z.array(emailAddress).min(1).max(10).openapi({ description: 'Outside addresses (1–10)' }),
  message_ids: z
    .array(z.uuid())
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: 'Messages of this conversation to quote (not private notes); omitted: the whole conversation (its latest 200 messages)' }),
  note: z.string().trim().max(10_000).default('').openapi({ description: 'Text above the forwarded messages (at most 10,000 characters)' }),
});

export const replyRecipientsResponse = z
  .object({
    from: z.string().openapi({ description: 'The support address replies come from' }),
    to: z.object({ address: z.string(), name: z.string().optional() }).nullable().openapi({ description: 'The customer' }),
    cc: z
      .array(z.object({ address: z.string(), name: z.string().optional() }))
      .openapi({ description: "Copied by default: the other recipients of the customer's latest mail" }),
    signature: z.string().nullable().openapi({ description: "What a reply by the caller appends: their signature, then the channel's" }),
  })
  .openapi('ReplyRecipients');

export const resolvedResponse = z
  .object({ resolved_at: z.string().optional(), detail: z.string().optional() })
  .openapi('ResolveResult', { description: '`{resolved_at}`, or `{detail}` when it already was resolved' });

export const closedResponse = z
  .object({ closed_at: z.string().optional(), detail: z.string().optional() })
  .openapi('CloseResult', { description: '`{closed_at}`, or `{detail}` when it already was closed' });

export const assignResponse = z
  .object({ assignee_id: z.number().int().openapi({ description: 'The agent number from the path' }) })
  .openapi('AssignByNumberResult');

export const uploadResponse = z
  .object({
    url: z.string().openapi({ description: 'Absolute, unguessable, readable without a token' }),
    filename: z.string(),
    content_type: z.string(),
    size: z.number().int().openapi({ description: 'Bytes' }),
  })
  .openapi('Upload');

export const uploadParams = z.object({ storage_key: z.string() });

export const messageParams = z.object({ conversation_id: z.uuid(), message_id: z.uuid() });

export const editScheduledBody = z
  .object({
    content: messageText.optional(),
    send_at: futureTime(MAX_SCHEDULE_DAYS, 'send_at').optional().openapi({ description: 'A new time ahead' }),
  })
  .refine((b) => b.content !== undefined || b.send_at !== undefined, { message: 'Give content, send_at or both' });

export const snoozeBody = z
  .object({
    until: futureTime(366, 'until').nullish().openapi({ description: 'Wake at this time (ahead, at most a year)' }),
    until_customer_replies: z.boolean().optional().openapi({ description: '`true`: no time; wake when the customer writes' }),
  })
  .refine((b) => (b.until != null) !== (b.until_customer_replies === true), {
    message: 'Give either `until` (a time ahead) or `until_customer_replies: true`',
  })
  .openapi('SnoozeInput', { description: '`{until}` or `{until_customer_replies: true}`; either way the customer writing wakes it' });

export const priorityBody = z.object({ priority: z.enum(priorities) }).openapi('PriorityInput');

export const mergeBody = z.object({ from_conversation_id: z.uuid() });
