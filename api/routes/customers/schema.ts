import { z } from '../../../lib/zod.ts';
import { intParam } from '../../validation.ts';
import { customerSchema } from '../../../core/presenters/customer.ts';
import { conversationSchema } from '../../../core/presenters/conversation.ts';
import { ATTRIBUTE_KEY_PATTERN, MAX_ATTRIBUTE_TEXT, MAX_ATTRIBUTES, MAX_ATTRIBUTES_BYTES, MAX_RETENTION_DAYS } from '../../../core/commands/customers.ts';

export const listCustomersQuery = z.object({
  q: z.string().trim().max(200).optional().openapi({ description: 'Case-insensitive substring of the name, e-mail or phone' }),
  limit: intParam({ min: 1, max: 200 }).default(50).openapi({ default: 50 }),
  before: intParam({ min: 1 }).optional().openapi({ description: 'The X-Next-Cursor header of the previous page: customers with a lower id come next' }),
});

export const customerParams = z.object({
  id: intParam().openapi({ description: "The customer's integer id (`number`)" }),
});

const noControl = (s: string) => !/[\u0000-\u001f\u007f]/.test(s);

const attributeValue = z.union([z.string().max(MAX_ATTRIBUTE_TEXT), z.number().finite(), z.boolean(), z.null()]);

export const updateCustomerBody = z.object({
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .refine(noControl, { message: 'The name cannot contain control characters' })
    .optional()
    .openapi({ description: '1–200 characters' }),
  email: z
    .union([
      z
        .string()
        .trim()
        .max(254)
        .pipe(z.email({ message: 'value is not a valid email address' })),
      z.null(),
    ])
    .optional()
    .openapi({ description: 'An e-mail address, or null to clear it' }),
  phone: z
    .union([
      z
        .string()
        .trim()
        .min(3)
        .max(50)
        .regex(/^\+?[0-9 ().-]+$/, 'digits, spaces, + ( ) . - only'),
      z.null(),
    ])
    .optional()
    .openapi({ description: 'Digits, spaces and `+ ( ) . -`, 3–50 characters; or null to clear it' }),
  attributes: z
    .record(z.string().regex(ATTRIBUTE_KEY_PATTERN, 'keys are 1–50 characters: letters, digits, _ . - (starting with a letter or digit)'), attributeValue)
    .refine((a) => Object.keys(a).length <= MAX_ATTRIBUTES, { message: `at most ${MAX_ATTRIBUTES} attributes` })
    .optional()
    .openapi({
      description:
        `Merged into the stored attributes: each key given is set, a key set to null is removed, keys not given are kept. Values: text (up to ${MAX_ATTRIBUTE_TEXT} characters), ` +
        `number or boolean. Keys: 1–50 characters of letters, digits, \`_ . -\`. A customer has at most ${MAX_ATTRIBUTES} attributes and ${MAX_ATTRIBUTES_BYTES} bytes of them (as JSON): 422 past either.`,
      example: { plan: 'gold', orders: 12, vip: true },
    }),
});

export const mergeCustomerBody = z.object({
  from_customer_id: z
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .openapi({ description: 'The integer id of the customer merged into this one (it is gone afterwards)' }),
});

export const mergeResultSchema = z
  .object({
    customer: customerSchema,
    conversations_moved: z.number().int().openapi({ description: "Conversations that were the other customer's" }),
  })
  .openapi('CustomerMerge');

export const erasureSchema = z
  .object({
    id: z.number().int().openapi({ description: "The customer's integer id (now unknown: 404 from here on)" }),
    status: z.literal('erasing').openapi({ description: 'The record is hidden and emptied; the erase_customer job removes the rest within moments' }),
  })
  .openapi('CustomerErasure');

export const identitySchema = z.object({
  channel_id: z.uuid().nullable(),
  channel_type: z.string().nullable(),
  platform_user_id: z
    .string()
    .openapi({ description: "The customer's id on the platform (a phone number, a chat id, a widget visitor id, an e-mail address)" }),
});

export const exportAttachmentSchema = z.object({
  conversation_id: z.uuid(),
  message_id: z.uuid(),
  url: z.string().nullable().openapi({ description: 'The file (readable without a token while it exists)' }),
  filename: z.string().nullable(),
  content_type: z.string().nullable(),
  size: z.number().int().nullable(),
});

export const customerExportSchema = z
  .object({
    exported_at: z.string(),
    customer: customerSchema,
    identities: z
      .array(identitySchema)
      .openapi({ description: 'Every platform identity that files messages on this customer (its own and those of customers merged into it)' }),
    conversations: z.array(conversationSchema).openapi({ description: 'Oldest first, each with all its messages (private notes included, marked `private`)' }),
    attachments: z.array(exportAttachmentSchema).openapi({ description: 'Every file of those messages, linked' }),
    notes: z
      .array(z.object({ id: z.uuid(), author_name: z.string(), body: z.string(), created_at: z.string() }))
      .openapi({ description: "The team's notes on the customer (GET /customers/{id}/notes), oldest first" }),
  })
  .openapi('CustomerExport');

export const retentionSchema = z
  .object({
    days: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Resolved and closed conversations whose last message is older than this are deleted daily; null: kept forever' }),
  })
  .openapi('RetentionSettings');

export const updateRetentionBody = z.object({
  days: z
    .union([z.number().int().min(1).max(MAX_RETENTION_DAYS), z.null()])
    .openapi({ description: `1–${MAX_RETENTION_DAYS} days, or null to keep conversations forever` }),
});
