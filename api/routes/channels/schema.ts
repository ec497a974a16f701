import { z } from '../../../lib/zod.ts';
import { channelTypes } from '../../../connectors/index.ts';

const typeField = z.string().openapi({
  description: `One of ${channelTypes.map((type) => `\`${type}\``).join(', ')}; anything else is 400 \`Invalid channel type\``,
  example: 'telegram',
});

const configField = z.looseObject({}).openapi({
  description: 'Fields by type (`GET /api/v1/channel-types` lists them): missing required fields are 400 naming them; unknown keys are dropped',
  example: { bot_token: '123456:ABC-DEF' },
});

export const createChannelBody = z.object({
  type: typeField,
  config: configField.default({}),
  is_active: z.boolean().default(true),
});

export const updateChannelBody = z.object({
  type: typeField.optional(),
  config: configField.optional().openapi({
    description:
      'Merged into the stored config: given keys replace, `null` removes a key, omitted keys keep their value. With a new `type` the config starts empty.',
  }),
  is_active: z.boolean().optional(),
  default_team_id: z.union([z.uuid(), z.null()]).optional().openapi({
    description: 'A team of the business (400 `Team not found` otherwise) that conversations opened on the channel from now on start in; `null`: none',
  }),
});

export const channelIdParams = z.object({ channel_id: z.uuid() });

export const messageResponse = z.object({ message: z.string() });
