/** Settings → Customer attributes: the business's typed custom fields (docs/decisions.md#customer-records). */
import { z } from '../../../lib/zod.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { replaceAttributeDefinitions } from '../../../core/commands/customer-attributes.ts';
import { actorOf } from '../../../core/domain/platform/audit.ts';
import {
  ATTRIBUTE_KEY_PATTERN,
  attributeTypes,
  loadAttributeDefinitions,
  MAX_ATTRIBUTE_DEFINITIONS,
  MAX_ATTRIBUTE_TEXT,
} from '../../../core/domain/customer-attributes.ts';
import { defineRoute } from '../../route.ts';

const noControl = (s: string) => !/[\u0000-\u001f\u007f]/.test(s);

export const attributeDefinitionSchema = z
  .object({
    key: z
      .string()
      .regex(ATTRIBUTE_KEY_PATTERN, 'keys are 1–50 characters: letters, digits, _ . - (starting with a letter or digit)')
      .openapi({ description: 'The key in `attributes` (and in `attr.<key>` filters, `attr.<key>` CSV columns)', example: 'plan' }),
    label: z.string().trim().min(1).max(100).refine(noControl, 'no control characters').openapi({ description: 'Shown to agents', example: 'Plan' }),
    type: z.enum(attributeTypes).openapi({
      description: '`text` (up to 500 characters), `number`, `date` (`YYYY-MM-DD`), `boolean`, `list` (one of `options`)',
    }),
    options: z
      .array(z.string().trim().min(1).max(MAX_ATTRIBUTE_TEXT).refine(noControl, 'no control characters'))
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: 'The choices of a `list` (1–100, distinct); only for `list`', example: ['free', 'pro', 'enterprise'] }),
  })
  .openapi('CustomerAttributeDefinition');

export const attributeDefinitionsSchema = z.object({ attributes: z.array(attributeDefinitionSchema) }).openapi('CustomerAttributeDefinitions');

export const putAttributeDefinitionsBody = z.object({
  attributes: z
    .array(attributeDefinitionSchema)
    .max(MAX_ATTRIBUTE_DEFINITIONS)
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach((d, i) => {
        if (seen.has(d.key)) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `The key ${d.key} is defined twice` });
        seen.add(d.key);
        if (d.type === 'list' && !d.options) ctx.addIssue({ code: 'custom', path: [i, 'options'], message: 'A list needs its options' });
        if (d.type !== 'list' && d.options) ctx.addIssue({ code: 'custom', path: [i, 'options'], message: 'Only a list has options' });
        if (d.options && new Set(d.options).size !== d.options.length)
          ctx.addIssue({ code: 'custom', path: [i, 'options'], message: 'The options must be distinct' });
      });
    })
    .openapi({ description: `The whole list, in the order shown (at most ${MAX_ATTRIBUTE_DEFINITIONS}); replaces the stored one` }),
});

const docs = 'See docs/decisions.md#customer-records.';

export const readDefinitions = defineRoute({
  method: 'get',
  path: '/api/v1/settings/customer-attributes',
  summary: 'Customer attribute definitions',
  description: `The custom fields customers have, in order. ${docs}`,
  tags: ['Settings'],
  auth: 'user',
  policy: 'customer_attributes.read',
  response: attributeDefinitionsSchema,
  errors: [404],
  handler: async ({ member, deps }) => ({ attributes: await loadAttributeDefinitions(deps.db, member.businessId) }),
});

export const replaceDefinitions = defineRoute({
  method: 'put',
  path: '/api/v1/settings/customer-attributes',
  summary: 'Replace the customer attribute definitions (owner or admin)',
  description:
    "From then on PATCH /customers/{id} `attributes` (and the widget's identified visitors, and the CSV import) are checked against them: a key not defined is 422, a value of the " +
    'wrong type is 422 naming the field. With no definitions at all, attributes stay free-form (text, number or boolean). Values customers already hold are kept when a definition goes; ' +
    `they can still be removed (null). Recorded in the audit log. ${docs}`,
  tags: ['Settings'],
  auth: 'user',
  policy: 'customer_attributes.manage',
  body: putAttributeDefinitionsBody,
  response: attributeDefinitionsSchema,
  errors: [403, 404],
  handler: async ({ body, caller, member, deps }) => {
    const { definitions } = await runCommand(deps, (tx) =>
      replaceAttributeDefinitions(tx, { businessId: member.businessId, actor: actorOf(caller), definitions: body.attributes }),
    );
    return { attributes: definitions };
  },
});

export default [readDefinitions, replaceDefinitions];
