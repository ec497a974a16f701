/** kb_articles row joined with its business → the spec's Article object (integer ids, decisions.md). */
import { z } from '../../lib/zod.ts';
import { sql } from '../../core/adapters/postgres/db.ts';

export const indexStatuses = ['pending', 'indexed', 'failed'] as const;

export const articleRow = z.object({
  id: z.number(),
  business_number: z.number(),
  title: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  created_at: z.string(),
  index_status: z.enum(indexStatuses),
});
export type ArticleRow = z.infer<typeof articleRow>;

/** The columns articleRow reads, for `select ${articleColumns} from kb_articles a join businesses b on b.id = a.business_id`. */
export const articleColumns = sql.fragment`a.id, b.number as business_number, a.title, a.content, a.tags, a.created_at, a.index_status`;

export const articleSchema = z
  .object({
    id: z.number().int().openapi({ description: "The article's integer id" }),
    business_id: z.number().int().openapi({ description: 'The business `number` (integer), not its UUID' }),
    title: z.string(),
    content: z.string().openapi({ description: 'Plain text, read as-is by the AI agent' }),
    tags: z.array(z.string()),
    created_at: z.string(),
    index_status: z.enum(indexStatuses).openapi({ description: 'Semantic-search indexing: `pending` until the index job ran, then `indexed` or `failed`' }),
  })
  .openapi('Article');

export const presentArticle = (row: ArticleRow): z.infer<typeof articleSchema> => ({
  id: row.id,
  business_id: row.business_number,
  title: row.title,
  content: row.content,
  tags: row.tags,
  created_at: row.created_at,
  index_status: row.index_status,
});
