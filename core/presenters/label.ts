/** labels row → the Label object; canned_responses row → the CannedResponse object. */
import { z } from '../../lib/zod.ts';
import { sql } from '../adapters/postgres/db.ts';

export const labelRow = z.object({
  id: z.string(),
  name: z.string(),
  color: z.string(),
  description: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type LabelRow = z.infer<typeof labelRow>;

/** The columns labelRow reads, for `select ${labelColumns} from labels l`. */
export const labelColumns = sql.fragment`l.id, l.name, l.color, l.description, l.created_at, l.updated_at`;

export const labelSchema = z
  .object({
    id: z.uuid(),
    name: z.string().openapi({ description: 'Unique in the business whatever its case; what conversations carry in `labels`' }),
    color: z.string().openapi({ description: '`#rrggbb`, lowercase', example: '#1f93ff' }),
    description: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Label');
export type Label = z.infer<typeof labelSchema>;

export const presentLabel = (row: LabelRow): Label => ({ ...row });

export const cannedResponseRow = z.object({
  id: z.string(),
  short_code: z.string(),
  content: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type CannedResponseRow = z.infer<typeof cannedResponseRow>;

/** The columns cannedResponseRow reads, for `select ${cannedResponseColumns} from canned_responses cr`. */
export const cannedResponseColumns = sql.fragment`cr.id, cr.short_code, cr.content, cr.created_at, cr.updated_at`;

export const cannedResponseSchema = z
  .object({
    id: z.uuid(),
    short_code: z.string().openapi({ description: 'What an agent types after `/` in the composer; unique in the business whatever its case' }),
    content: z.string().openapi({ description: 'The reply, with placeholders such as `{{customer.name}}` as written' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('CannedResponse');
export type CannedResponse = z.infer<typeof cannedResponseSchema>;

export const presentCannedResponse = (row: CannedResponseRow): CannedResponse => ({ ...row });
