/**
 * WhatsApp's 24-hour customer service window and message templates (issue 19 item 4).
 *
 * Meta accepts a free-form message only within 24 hours of the customer's last message (after
 * that, error 131047 at delivery). Parley keeps `conversations.reply_window_expires_at` (a trigger
 * on customer messages, migration 0088) and refuses a free-form reply outside it at once (422),
 * instead of queueing one that Meta will refuse. A template (approved by Meta for the channel's
 * WhatsApp Business Account) may be sent inside or outside the window.
 *
 * Templates are read from Graph (`GET {waba}/message_templates`) into `channel_templates` when
 * the list is first asked for or `refresh=true`: only APPROVED ones are kept.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest, notFound, validationError } from '../errors.ts';
import type { Config } from '../config.ts';
import { loadChannel } from '../commands/channel-runtime.ts';
import { connectorFor } from '../../connectors/index.ts';
import { connectorContext } from './channels/connector-context.ts';
import { graphGet, graphUrl } from '../../connectors/meta.ts';
import { ConnectorError } from '../../connectors/types.ts';

/** Channel types with a reply window Parley enforces. */
export const WINDOWED_CHANNEL_TYPES: ReadonlySet<string> = new Set(['whatsapp']);

/**
 * Over the conversations row `c`: a free-form reply may go out now (its channel has no reply
 * window, or WhatsApp's 24 hours are still open). The reply's statement, a failed reply sent
 * again and a scheduled reply's release ask the same.
 */
export const replyWindowOpen = sql.fragment`(c.channel_type <> all(${sql.array([...WINDOWED_CHANNEL_TYPES], 'text')}) or coalesce(c.reply_window_expires_at > now(), false))`;

export const templateRow = z.object({
  name: z.string(),
  language: z.string(),
  category: z.string(),
  status: z.string(),
  body: z.string(),
  parameter_count: z.number(),
  synced_at: z.string(),
});
export type TemplateRow = z.infer<typeof templateRow>;

export type TemplateInput = { name: string; language: string; parameters: string[] };

/** The body text with {{n}} replaced by the parameters: what the thread shows for a template reply. */
export function renderTemplate(body: string, parameters: string[]): string {
  return body.replace(/\{\{\s*(\d+)\s*\}\}/g, (whole, n: string) => parameters[Number(n) - 1] ?? whole);
}

/** How many distinct {{n}} placeholders a body has (the highest n). */
export function placeholderCount(body: string): number {
  let highest = 0;
  for (const match of body.matchAll(/\{\{\s*(\d+)\s*\}\}/g)) highest = Math.max(highest, Number(match[1]));
  return highest;
}

const graphTemplate = z.looseObject({
  name: z.string(),
  language: z.string(),
  status: z.string(),
  category: z.string().optional(),
  components: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })).optional(),
});

const windowRow = z.object({
  channel_type: z.string(),
  channel_id: z.string().nullable(),
  reply_window_expires_at: z.string().nullable(),
  window_open: z.boolean(),
});

/**
 * Checks a reply against the conversation's channel before anything is stored: 404 for a
 * conversation of another business; 422 for a free-form reply outside the window, and for a
 * template that is not an approved one of the channel or has the wrong number of parameters.
 * Returns the text to store (a template's rendered body), or null to keep the reply's own.
 */
/** 422 `reply_window_closed` on `body.content`: a free-form reply after WhatsApp's 24 hours. */
export function replyWindowClosed(expiresAt: string | null) {
  const when = expiresAt ? `closed at ${expiresAt} (24 hours after the customer's last message)` : 'is not open (the customer has not written yet)';
  return validationError([
    {
      loc: ['body', 'content'],
      msg: `WhatsApp's 24-hour reply window ${when}: WhatsApp refuses free-form messages now. Send an approved template instead (\`template\`).`,
      type: 'reply_window_closed',
    },
  ]);
}

export async function checkReply(q: Queryable, input: { businessId: string; conversationId: string; template: TemplateInput | null }): Promise<string | null> {
  const conversation = await q.maybeOne(sql.type(windowRow)`
    select channel_type, channel_id, reply_window_expires_at,
           coalesce(reply_window_expires_at > now(), false) as window_open
    from conversations where id = ${input.conversationId} and business_id = ${input.businessId}`);
  if (!conversation) throw notFound('Conversation not found');
  const windowed = WINDOWED_CHANNEL_TYPES.has(conversation.channel_type);
  if (!input.template) {
    if (windowed && !conversation.window_open) throw replyWindowClosed(conversation.reply_window_expires_at);
    return null;
  }
  if (!windowed || !conversation.channel_id) {
    throw validationError([{ loc: ['body', 'template'], msg: 'Templates can be sent on WhatsApp conversations only', type: 'value_error' }]);
  }
  return checkTemplate(q, { businessId: input.businessId, channelId: conversation.channel_id, template: input.template });
}

/**
 * 422 unless `template` is an approved template of the (WhatsApp) channel with as many parameters
 * as its body has placeholders; returns its rendered body.
 */
export async function checkTemplate(q: Queryable, input: { businessId: string; channelId: string; template: TemplateInput }): Promise<string> {
  const template = await q.maybeOne(sql.type(templateRow)`
    select name, language, category, status, body, parameter_count, synced_at from channel_templates
    where channel_id = ${input.channelId} and business_id = ${input.businessId}
      and name = ${input.template.name} and language = ${input.template.language} and status = 'APPROVED'`);
  if (!template) {
    throw validationError([
      {
        loc: ['body', 'template', 'name'],
        msg: `No approved template "${input.template.name}" in ${input.template.language} for this channel (GET /api/v1/channels/{id}/templates?refresh=true)`,
        type: 'value_error',
      },
    ]);
  }
  if (input.template.parameters.length !== template.parameter_count) {
    throw validationError([
      {
        loc: ['body', 'template', 'parameters'],
        msg: `The template takes ${template.parameter_count} parameter(s), got ${input.template.parameters.length}`,
        type: 'value_error',
      },
    ]);
  }
  return renderTemplate(template.body, input.template.parameters);
}

/** Reads the approved templates of a WhatsApp channel's Business Account from Graph into channel_templates. */
export async function syncTemplates(q: Queryable, config: Config, businessId: string, channelId: string): Promise<void> {
  const channel = await loadChannel(q, config.encryptionKey, channelId);
  if (!channel || channel.business_id !== businessId) throw notFound('Channel not found');
  if (channel.type !== 'whatsapp') throw badRequest('Templates exist for WhatsApp channels only');
  const waba = channel.config.business_account_id;
  if (!waba) throw badRequest("Set the channel's business_account_id (the WhatsApp Business Account id) to use templates");
  const connector = connectorFor('whatsapp');
  const base = connectorContext(config, connector).baseUrl;
  const found: z.infer<typeof graphTemplate>[] = [];
  let url: string | null = `${graphUrl(base, waba, 'message_templates')}?fields=name,language,status,category,components&limit=100`;
  try {
    for (let page = 0; url && page < 20; page++) {
      const answer = (await graphGet('WhatsApp', url, channel.config.access_token)) as { data?: unknown[]; paging?: { next?: string } };
      for (const item of answer?.data ?? []) {
        const parsed = graphTemplate.safeParse(item);
        if (parsed.success) found.push(parsed.data);
      }
      const next = answer?.paging?.next;
      // Follow Graph's own next page only on the same host.
      url = typeof next === 'string' && next.startsWith(base.replace(/\/v[\d.]+\/?$/, '')) ? next : null;
    }
  } catch (error) {
    if (error instanceof ConnectorError) throw badRequest(`WhatsApp did not list the templates: ${error.message}`);
    throw error;
  }
  const rows = found
    .filter((t) => t.status === 'APPROVED')
    .map((t) => {
      const body = t.components?.find((c) => c.type.toUpperCase() === 'BODY')?.text ?? '';
      return {
        name: t.name,
        language: t.language,
        category: t.category ?? '',
        status: t.status,
        body,
        parameter_count: placeholderCount(body),
        components: t.components ?? [],
      };
    });
  await q.transaction(async (tx) => {
    await tx.query(sql.unsafe`delete from channel_templates where channel_id = ${channelId} and business_id = ${businessId}`);
    if (rows.length === 0) return;
    await tx.query(sql.unsafe`
      insert into channel_templates (business_id, channel_id, name, language, category, status, body, parameter_count, components)
      select ${businessId}, ${channelId}, t.name, t.language, t.category, t.status, t.body, t.parameter_count, t.components
      from jsonb_to_recordset(${sql.jsonb(rows as never)}) as t(name text, language text, category text, status text, body text, parameter_count int, components jsonb)
      on conflict do nothing`);
  });
}

/** One page of a channel's cached templates, by (name, language); syncs first when never synced or asked to. */
export async function listTemplates(
  q: Queryable,
  config: Config,
  input: { businessId: string; channelId: string; refresh: boolean; limit: number; after: { name: string; language: string } | null },
): Promise<{ templates: TemplateRow[]; next: { name: string; language: string } | null }> {
  const channel = await q.maybeOne(sql.type(z.object({ type: z.string(), synced: z.boolean() }))`
    select ch.type, exists (select 1 from channel_templates t where t.channel_id = ch.id and t.business_id = ch.business_id) as synced
    from channels ch where ch.id = ${input.channelId} and ch.business_id = ${input.businessId}`);
  if (!channel) throw notFound('Channel not found');
  if (channel.type !== 'whatsapp') throw badRequest('Templates exist for WhatsApp channels only');
  if (input.refresh || !channel.synced) await syncTemplates(q, config, input.businessId, input.channelId);
  const rows = await q.any(sql.type(templateRow)`
    select name, language, category, status, body, parameter_count, synced_at from channel_templates
    where channel_id = ${input.channelId} and business_id = ${input.businessId}
      ${input.after ? sql.fragment`and (name, language) > (${input.after.name}, ${input.after.language})` : sql.fragment``}
    order by name, language
    limit ${input.limit + 1}`);
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  return { templates: page, next: rows.length > input.limit && last ? { name: last.name, language: last.language } : null };
}
