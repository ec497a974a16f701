/**
 * Website widgets: create one with its `widget` channel, change one. Each runs in the caller's
 * transaction. Lock order: the business row (the plan's channel count) before the widget insert,
 * which takes a key-share lock on the business (createChannel would otherwise upgrade it later
 * and deadlock concurrent creations in one business).
 */
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest, notFound } from '../errors.ts';
import { assertMayAddChannel } from '../domain/plans.ts';
import { widgetColumns, widgetRow, type WidgetRow } from '../presenters/widget.ts';
import { createChannel } from './channels.ts';
import { widgetChannelType } from '../../connectors/index.ts';
import { newIdentitySecret, sealIdentitySecret } from '../domain/visitors/identity-verification.ts';

/** What the owner sets (lengths and formats checked by the route: api/routes/widgets/schema.ts). */
export type WidgetFields = Pick<
  WidgetRow,
  'name' | 'domain' | 'welcome_heading' | 'welcome_tagline' | 'primary_color' | 'show_online_badge' | 'logo_url' | 'config'
>;

const domainTaken = () => badRequest('A widget for this domain already exists');

/** Widgets one business may have: one per site it runs, with room to spare (the list is read whole by the app). */
export const MAX_WIDGETS_PER_BUSINESS = 20;

/**
 * Creates the widget and its `widget` channel (config `{widget_id}`, connected at once), which
 * counts against the plan's channels (402 when full). 400 when the business has a widget for the domain.
 */
export async function createWidget(tx: Queryable, encryptionKey: Uint8Array, input: { businessId: string; fields: WidgetFields }): Promise<WidgetRow> {
  // The plan check locks the business row: two creates count one after the other.
  await assertMayAddChannel(tx, input.businessId, widgetChannelType);
  const { n } = await tx.one(sql.type(z.object({ n: z.number() }))`select count(*)::int as n from widgets where business_id = ${input.businessId}`);
  if (n >= MAX_WIDGETS_PER_BUSINESS) throw badRequest(`A business may have at most ${MAX_WIDGETS_PER_BUSINESS} widgets`);
  const f = input.fields;
  const widget = await tx.maybeOne(sql.type(widgetRow)`
    insert into widgets (business_id, name, domain, welcome_heading, welcome_tagline, primary_color, show_online_badge, logo_url, config, identity_secret_encrypted)
    values (${input.businessId}, ${f.name}, ${f.domain}, ${f.welcome_heading}, ${f.welcome_tagline},
            ${f.primary_color}, ${f.show_online_badge}, ${f.logo_url}, ${sql.jsonb(f.config as never)}, ${sealIdentitySecret(encryptionKey, newIdentitySecret())})
    on conflict (business_id, domain) do nothing
    returning ${widgetColumns}`);
  if (!widget) throw domainTaken();
  // A widget channel is found by its widget id, never through the webhook routing cache: nothing to forget.
  await createChannel(tx, encryptionKey, { businessId: input.businessId, type: widgetChannelType, config: { widget_id: widget.id }, isActive: true });
  return widget;
}

/**
 * Changes the given fields (undefined keeps a field; `logo_url: null` removes the logo; `config`
 * replaces the stored one). 404 for another business's or an unknown widget, 400 when the new
 * domain is another widget's of the business.
 */
export async function updateWidget(tx: Queryable, input: { businessId: string; widgetId: string; changes: Partial<WidgetFields> }): Promise<WidgetRow> {
  const current = await tx.maybeOne(sql.type(widgetRow)`
    select ${widgetColumns} from widgets where id = ${input.widgetId} and business_id = ${input.businessId} for update`);
  if (!current) throw notFound('Widget not found');
  const next = { ...current, ...Object.fromEntries(Object.entries(input.changes).filter(([, v]) => v !== undefined)) };
  try {
    return await tx.one(sql.type(widgetRow)`
      update widgets set
        name = ${next.name}, domain = ${next.domain}, welcome_heading = ${next.welcome_heading},
        welcome_tagline = ${next.welcome_tagline}, primary_color = ${next.primary_color},
        show_online_badge = ${next.show_online_badge}, logo_url = ${next.logo_url},
        config = ${sql.jsonb(next.config as never)}, updated_at = now()
      where id = ${current.id}
      returning ${widgetColumns}`);
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError) throw domainTaken();
    throw error;
  }
}

/** The business's widget as stored, or null (another business's, or none). */
export async function findWidget(q: Queryable, businessId: string, widgetId: string): Promise<WidgetRow | null> {
  return q.maybeOne(sql.type(widgetRow)`select ${widgetColumns} from widgets where id = ${widgetId} and business_id = ${businessId}`);
}
