/** widgets row → the spec's Widget; the public read adds `is_online`. */
import { z } from '../../lib/zod.ts';
import { sql } from '../adapters/postgres/db.ts';

export const widgetRow = z.object({
  id: z.string(),
  business_id: z.string(),
  name: z.string(),
  domain: z.string(),
  welcome_heading: z.string(),
  welcome_tagline: z.string(),
  primary_color: z.string(),
  show_online_badge: z.boolean(),
  logo_url: z.string().nullable(),
  config: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WidgetRow = z.infer<typeof widgetRow>;

/** The columns widgetRow reads; unqualified, for `from widgets` and `returning`. */
export const widgetColumns = sql.fragment`
  id, business_id, name, domain, welcome_heading, welcome_tagline, primary_color,
  show_online_badge, logo_url, config, created_at, updated_at`;

export const widgetSchema = z
  .object({
    id: z.uuid(),
    business_id: z.uuid(),
    name: z.string(),
    domain: z.string().openapi({ description: 'Trimmed and lower-cased; one widget per domain per business' }),
    welcome_heading: z.string(),
    welcome_tagline: z.string(),
    primary_color: z.string().openapi({ example: '#7650FF' }),
    show_online_badge: z.boolean(),
    logo_url: z.string().nullable(),
    config: z.record(z.string(), z.unknown()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Widget');
export type WidgetOutput = z.infer<typeof widgetSchema>;

export const widgetHoursSchema = z
  .object({
    enabled: z.boolean().openapi({ description: 'The business keeps business hours' }),
    is_open: z.boolean().openapi({ description: 'The team is within its hours now (always true when `enabled` is false)' }),
    next_open_at: z.string().nullable().openapi({ description: 'When closed: the next opening, ISO 8601 UTC (null when open, or none within 60 days)' }),
    timezone: z.string().openapi({ description: "The business's IANA time zone" }),
  })
  .openapi('WidgetBusinessHours');

export const publicWidgetSchema = widgetSchema
  .extend({
    is_online: z.boolean().openapi({ description: 'Some member of the business has status `live`' }),
    business_hours: widgetHoursSchema,
  })
  .openapi('PublicWidget');

export const presentWidget = (row: WidgetRow): WidgetOutput => ({
  id: row.id,
  business_id: row.business_id,
  name: row.name,
  domain: row.domain,
  welcome_heading: row.welcome_heading,
  welcome_tagline: row.welcome_tagline,
  primary_color: row.primary_color,
  show_online_badge: row.show_online_badge,
  logo_url: row.logo_url,
  config: row.config,
  created_at: row.created_at,
  updated_at: row.updated_at,
});
