import { z } from '../../../lib/zod.ts';

const fieldSchema = z.object({
  key: z.string().openapi({ description: 'The config key', example: 'bot_token' }),
  label: z.string().openapi({ example: 'Bot token' }),
  required: z.boolean().openapi({ description: 'Missing: 400 on create (e-mail: any IMAP field makes the IMAP host, user and password required)' }),
  secret: z.boolean().openapi({ description: 'Shown as `********` to agents' }),
  placeholder: z.string().optional(),
  input: z
    .enum(['text', 'number', 'email', 'textarea'])
    .openapi({ description: 'The form input that fits the value (`textarea`: several lines, e.g. an e-mail signature)' }),
});

export const channelTypeSchema = z
  .object({
    type: z.string().openapi({ example: 'telegram' }),
    label: z.string().openapi({ example: 'Telegram' }),
    internal: z.boolean().openapi({ description: 'Parley itself is the platform (`webchat`, `widget`): connected from the start, nothing to register' }),
    intro: z.string().openapi({ description: 'One paragraph on what the type needs' }),
    steps: z.array(z.string()).openapi({ description: 'How to connect it, in order' }),
    fields: z.array(fieldSchema).openapi({ description: 'The `config` fields, in form order' }),
    webhook: z.enum(['channel', 'shared', 'none']).openapi({
      description:
        '`channel`: the platform posts to `/api/v1/webhooks/<type>/{channel_id}`; `shared`: to `/api/v1/webhooks/<type>` for every channel of the type; `none`: it does not post',
    }),
    icon: z
      .object({
        color: z.string().openapi({ example: '#0EA5E9' }),
        path: z.string().openapi({ description: 'One SVG path on a 24×24 grid, drawn as a stroke' }),
      })
      .openapi({ description: 'A small icon for lists' }),
    title_field: z
      .string()
      .nullable()
      .openapi({ description: 'The config field that tells two channels of this type apart in a list (a number, an address); null when none does' }),
    after_connect: z
      .object({
        text: z.string(),
        values: z.array(
          z.object({
            label: z.string().openapi({ example: 'Callback URL' }),
            source: z.string().openapi({
              description: 'Where the value is on the Channel object: `webhook_url`, `config.<key>`, `inbound_webhook.url`, `inbound_webhook.secret`',
              example: 'webhook_url',
            }),
          }),
        ),
      })
      .nullable()
      .openapi({
        description: 'What the owner still sets in the platform once the channel exists (shown when its first value is present); null when Parley does it all',
      }),
  })
  .openapi('ChannelType');

export const channelTypesResponse = z.object({ items: z.array(channelTypeSchema) });
