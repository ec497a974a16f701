import { visitContextInput } from '../../../core/domain/visitors/visitor-context.ts';
import { z } from '../../../lib/zod.ts';
import { intParam } from '../../validation.ts';
import { visitorSenderTypes } from '../../../core/presenters/visitor-message.ts';
import { ATTRIBUTE_KEY_PATTERN, MAX_ATTRIBUTE_TEXT } from '../../../core/domain/customer-attributes.ts';

const noControl = (s: string) => !/[\u0000-\u001f\u007f]/.test(s);

export const visitorIdentitySchema = z
  .object({
    external_id: z
      .string()
      .min(1)
      .max(200)
      .refine(noControl, 'no control characters')
      .optional()
      .openapi({ description: 'Your own id of the signed-in user (hashed when given, exactly as sent)' }),
    email: z
      .string()
      .max(254)
      .pipe(z.email())
      .optional()
      .openapi({ description: 'Their e-mail (hashed, exactly as sent, when there is no `external_id`; stored lower-cased)' }),
    name: z.string().trim().max(100).refine(noControl, 'no control characters').optional(),
    attributes: z
      .record(
        z.string().regex(ATTRIBUTE_KEY_PATTERN, 'keys are 1–50 characters: letters, digits, _ . -'),
        z.union([z.string().max(MAX_ATTRIBUTE_TEXT), z.number().finite(), z.boolean(), z.null()]),
      )
      .optional()
      .openapi({ description: "Custom attributes, checked against the business's definitions like PATCH /customers/{id} (merged; null removes)" }),
    user_hash: z
      .string()
      .min(1)
      .max(200)
      .openapi({ description: 'hex(HMAC-SHA256(widget identity secret, external_id, or email when there is no external_id)), computed on your server' }),
  })
  .refine((i) => i.external_id !== undefined || i.email !== undefined, { message: 'external_id or email is required', path: ['external_id'] })
  .openapi('VisitorIdentity', {
    description:
      'An identified visitor, signed by your server (identity verification): with a matching `user_hash` the visitor is the same customer on every device and browser, ' +
      'with all their conversations; `name`, `email` and `visitor_token` beside it are then not used except that an anonymous visitor named by `visitor_token` is merged in. ' +
      'A wrong hash (or a widget without a secret): 401 and nothing changes',
  });

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
  identity: visitorIdentitySchema.optional(),
  context: visitContextInput.optional().openapi({
    description:
      "What the page knows of the visit, shown to agents beside the conversation (GET /customers/{id}/visit); the browser and system come from the request's User-Agent. Replaces what an earlier call reported.",
  }),
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
