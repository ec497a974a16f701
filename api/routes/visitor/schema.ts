import { z } from '../../../lib/zod.ts';
import { intParam } from '../../validation.ts';
import { visitorSenderTypes } from '../../../core/presenters/visitor-message.ts';

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
};

/** A blank optional form field (`""` or spaces) counts as not given. */
const blankToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

export const startSessionBody = z.object({
  widget_id: z.uuid().openapi({ description: 'The widget the page embeds' }),
  name: z
    .preprocess(blankToUndefined, z.string().trim().max(100).optional())
    .openapi({ description: 'Stored on the visitor (customer) when given; blank is ignored' }),
  email: z
    .preprocess(blankToUndefined, z.string().trim().toLowerCase().max(254).pipe(z.email()).optional())
    .openapi({ description: 'Stored on the visitor (customer) when given; lower-cased' }),
  visitor_token: z
    .string()
    .nullish()
    .openapi({ description: 'A token from an earlier session: that visitor is resumed when it is valid and of this widget; otherwise a new visitor starts' }),
});

export const sessionResponse = z
  .object({
    visitor_token: z.string().openapi({
      description:
        'Send as `Authorization: Bearer <visitor_token>` to the visitor API and as `auth: {visitor_token}` to the `/widget` socket. Valid 365 days; not an access token',
    }),
    visitor_id: z.string().openapi({ description: "The visitor's random id, kept as the customer's platform id on the widget channel" }),
    conversation_id: z.uuid().nullable().openapi({ description: "The conversation the visitor's next message goes to; null when none is open" }),
    resumed: z.boolean().openapi({ description: 'True when `visitor_token` named this visitor' }),
  })
  .openapi('VisitorSession');

const visitorAttachment = z.object({
  url: z.string().trim().max(2048).refine(isHttpUrl, 'must be an http or https URL'),
  filename: z.string().max(255).optional(),
  content_type: z.string().max(255).optional(),
  size: z.number().int().min(0).optional().openapi({ description: 'Bytes' }),
});

export const sendVisitorMessageBody = z.object({
  content: z.string().trim().min(1).max(10_000).openapi({ description: '1–10,000 characters after trimming' }),
  attachments: z.array(visitorAttachment).max(10).default([]).openapi({ description: 'Up to 10 links to files the visitor shares (http or https)' }),
  client_message_id: z
    .uuid()
    .optional()
    .openapi({ description: "The browser's id for this message: sending again with the same id returns the first message instead of storing a second" }),
});

export const listVisitorMessagesQuery = z.object({
  conversation_id: z
    .uuid()
    .optional()
    .openapi({ description: "One of the visitor's conversations; default: the current one (the latest unless it is closed)" }),
  limit: intParam({ min: 1, max: 500 }).default(100).openapi({ default: 100 }),
});

export const visitorMessageSchema = z
  .object({
    id: z.uuid(),
    conversation_id: z.uuid(),
    sender_type: z
      .enum(visitorSenderTypes)
      .openapi({ description: "`customer` (the visitor), `agent`, `ai`, or `system` (a notice of the team's, e.g. that it is out of hours)" }),
    content: z.string(),
    attachments: z.array(z.record(z.string(), z.unknown())),
    created_at: z.string(),
    csat: z.object({ token: z.string(), rating: z.number().int().nullable() }).optional().openapi({
      description: 'On the satisfaction question sent when the conversation was resolved: rate with POST /api/v1/csat/{token} (once); `rating` once given',
    }),
  })
  .openapi('VisitorMessage', {
    description:
      'A message as the visitor sees it: no sender ids, delivery status, platform ids or errors; system messages are shown only when delivered to the customer (the out-of-hours notice)',
  });
