/** What each channel type needs, from the connectors' descriptions: dashboards render their forms from it. */
import { connectors } from '../../../connectors/index.ts';
import type { AnyConnector, ConfigField } from '../../../connectors/types.ts';
import type { z } from '../../../lib/zod.ts';
import { defineRoute } from '../../route.ts';
import { channelTypesResponse, type channelTypeSchema } from './schema.ts';

const inputOf = (field: ConfigField) => (field.multiline ? 'textarea' : field.rule === 'port' ? 'number' : field.rule === 'email' ? 'email' : 'text');

export function presentChannelType(connector: AnyConnector): z.infer<typeof channelTypeSchema> {
  return {
    type: connector.type,
    label: connector.label,
    internal: connector.internal === true,
    intro: connector.setup.intro,
    steps: connector.setup.steps,
    fields: connector.config.map((field) => ({
      key: field.key,
      label: field.label,
      required: field.required,
      secret: field.secret === true,
      ...(field.placeholder ? { placeholder: field.placeholder } : {}),
      input: inputOf(field),
    })),
    webhook: connector.webhook?.mode ?? 'none',
    icon: connector.icon,
    title_field: connector.titleField ?? null,
    after_connect: connector.setup.afterConnect ?? null,
  };
}

export const list = defineRoute({
  method: 'get',
  path: '/api/v1/channel-types',
  summary: 'The channel types and what each needs',
  description:
    'Every channel type Parley can connect, in the order dashboards list them: its label, setup text, config fields (with which are required and secret) ' +
    'and how its platform posts to Parley. The same for every caller; read-only.',
  tags: ['Channels'],
  auth: 'user',
  response: channelTypesResponse,
  handler: async () => ({ items: connectors.map(presentChannelType) }),
});

export default [list];
