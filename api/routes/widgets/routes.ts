/** Website widgets: the business's list (any member), create and update (owner only), and the two public reads the embed script makes. */
import { z } from '../../../lib/zod.ts';
import { sql, type Queryable } from '../../../core/adapters/postgres/db.ts';
import { notFound } from '../../../core/errors.ts';
import { listChannels } from '../../../core/commands/channels.ts';
import { MAX_WIDGETS_PER_BUSINESS, createWidget, findWidget, updateWidget } from '../../../core/commands/widgets.ts';
import { settingsChanged } from '../../../core/events/domain.ts';
import { cursorColumn, encodeCursor, keysetPage } from '../../cursor.ts';
import { hoursStatus, loadBusinessHours } from '../../../core/commands/business-hours.ts';
import { defineRoute } from '../../route.ts';
import { presentWidget, publicWidgetSchema, widgetColumns, widgetRow, widgetSchema } from '../../../core/presenters/widget.ts';
import { presentPublicChannel, publicChannelSchema } from '../../presenters/channel.ts';
import { createWidgetBody, listWidgetsQuery, publicWidgetIdParams, updateWidgetBody, widgetIdParams } from './schema.ts';
import { runCommand } from '../../../core/commands/run-command.ts';

const tags = ['Widgets'];

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Any widget by id for the public reads; malformed ids read as missing (404). */
async function publicWidget(q: Queryable, widgetId: string) {
  const row = uuidPattern.test(widgetId)
    ? await q.maybeOne(sql.type(widgetRow.extend({ is_online: z.boolean() }))`
        select ${widgetColumns},
          exists (select 1 from team_members m where m.business_id = widgets.business_id and m.is_active and m.status = 'live') as is_online
        from widgets where id = ${widgetId}`)
    : null;
  if (!row) throw notFound('Widget not found');
  return row;
}

export const list = defineRoute({
  method: 'get',
  // Also answers `/api/v1/widget/` (a trailing slash is optional on every route).
  path: '/api/v1/widget',
  summary: "The business's widgets",
  description:
    "The widgets of the caller's business, oldest first, each as create and update return it (without the public read's `is_online`). " +
    `\`limit\` 1–200 (default 50; a business has at most ${MAX_WIDGETS_PER_BUSINESS}); when more exist, the \`X-Next-Cursor\` response header holds the value to pass as \`cursor\` for the next page. ` +
    'Any member may read (owner, admin, agent: agents copy the embed snippet too). The interface contract has no such list; without it a dashboard ' +
    "finds widgets through the business's `widget` channels and reads each one. The trailing slash of the path is optional. " +
    'A caller without a business: 400 `Organization not found`. See docs/decisions.md#website-widget-and-visitors.',
  tags,
  auth: 'user',
  policy: 'widgets.read',
  query: listWidgetsQuery,
  response: z.array(widgetSchema),
  errors: [400],
  handler: async ({ member, deps, query, ctx }) => {
    const { businessId } = member;
    const rows = await deps.db.any(sql.type(widgetRow.extend({ cursor_at: z.string() }))`
      select ${widgetColumns}, ${cursorColumn(sql.fragment`created_at`)} as cursor_at from widgets
      where business_id = ${businessId}
        ${query.cursor ? sql.fragment`and (created_at, id) > (${query.cursor.at}::timestamptz, ${query.cursor.id}::uuid)` : sql.fragment``}
      order by created_at, id
      limit ${query.limit + 1}`);
    const page = keysetPage(ctx, rows, query.limit, (last) => encodeCursor({ at: last.cursor_at, id: last.id }));
    return page.map(presentWidget);
  },
});

export const create = defineRoute({
  method: 'post',
  path: '/api/v1/widget/create',
  summary: 'Create a website widget (owner only)',
  description:
    'Creates the widget and, in the same transaction, its `widget` channel (config `{widget_id}`, `connected` at once), which counts ' +
    "against the plan's channels (402 when full; Free allows widget channels). `domain` is trimmed and lower-cased; one widget per " +
    'domain per business (400); at most ' +
    MAX_WIDGETS_PER_BUSINESS +
    ' widgets per business (400). Caller without a business: 400 `Organization not found`; not the owner: 403. See docs/decisions.md#website-widget-and-visitors.',
  tags,
  auth: 'user',
  policy: 'widgets.manage',
  body: createWidgetBody,
  response: widgetSchema,
  errors: [400, 402, 403],
  handler: async ({ body, member, deps }) => {
    const { row } = await runCommand(deps, async (tx) => {
      const created = await createWidget(tx, deps.config.encryptionKey, { businessId: member.businessId, fields: body });
      return { row: created, domainEvents: [settingsChanged(member.businessId, 'widget', null, presentWidget(created), created.id)] };
    });
    return presentWidget(row);
  },
});

export const update = defineRoute({
  method: 'put',
  path: '/api/v1/widget/update/:widget_id',
  summary: 'Change a website widget (owner only)',
  description:
    'Omitted fields keep their value; `logo_url: null` removes the logo; `config` replaces the stored one. A new domain must not be ' +
    "another widget's of the business (400). Another business's or an unknown widget: 404. See docs/decisions.md#website-widget-and-visitors.",
  tags,
  auth: 'user',
  policy: 'widgets.manage',
  params: widgetIdParams,
  body: updateWidgetBody,
  response: widgetSchema,
  errors: [400, 403, 404],
  handler: async ({ params, body, member, deps }) => {
    const id = member.businessId;
    const changed = await runCommand(deps, async (tx) => {
      const before = await findWidget(tx, id, params.widget_id);
      const row = await updateWidget(tx, { businessId: id, widgetId: params.widget_id, changes: body });
      return { row, domainEvents: [settingsChanged(id, 'widget', before && presentWidget(before), presentWidget(row), row.id)] };
    });
    return presentWidget(changed.row);
  },
});

export const read = defineRoute({
  method: 'get',
  path: '/api/v1/widget/:widget_id',
  summary: "A widget's public configuration (no token)",
  description:
    'For the embed script on any origin (CORS `*`). Adds `is_online`: some active member of the business is `live`; and `business_hours`: whether the team is within its hours and when it next opens (the widget shows it). Unknown or malformed id: 404. See docs/decisions.md#website-widget-and-visitors.',
  tags,
  auth: 'none',
  publicCors: true,
  params: publicWidgetIdParams,
  response: publicWidgetSchema,
  errors: [404],
  handler: async ({ params, deps }) => {
    const row = await publicWidget(deps.db, params.widget_id);
    const hours = hoursStatus(await loadBusinessHours(deps.db, row.business_id), new Date());
    return { ...presentWidget(row), is_online: row.is_online, business_hours: hours };
  },
});

export const channels = defineRoute({
  method: 'get',
  path: '/api/v1/widget/:widget_id/channels',
  summary: "The active channels of the widget's business (no token)",
  description:
    'For the embed script on any origin (CORS `*`). `config` is always `{}`: public reads never show credentials. Unknown or malformed id: 404. See docs/decisions.md#website-widget-and-visitors.',
  tags,
  auth: 'none',
  publicCors: true,
  params: publicWidgetIdParams,
  response: z.array(publicChannelSchema),
  errors: [404],
  handler: async ({ params, deps }) => {
    const widget = await publicWidget(deps.db, params.widget_id);
    const rows = await listChannels(deps.db, widget.business_id, { activeOnly: true });
    return rows.map(presentPublicChannel);
  },
});

export default [list, create, update, read, channels];
