/**
 * CSAT (docs/decisions.md#sla-targets-and-csat): the business's settings, the question asked once
 * when a conversation is resolved, and the customer's one rating.
 *
 * The `csat_request` job (armed by the trigger of migration 0095 when a conversation becomes
 * `resolved` while CSAT is on and it was never rated) sends the question as a `system` message
 * delivered through the conversation's channel and not counted against the month: on the website
 * widget the question alone (the widget shows 1–5 buttons under it), elsewhere the question and a
 * link to the public page `/csat/{token}`, added as the delivery sends it (the stored message is
 * the question alone: members never read a usable token). The token starts with the business id
 * (base64url of its 16 bytes, then 18 random bytes): whoever has it may rate once, within 14
 * days, nothing else; a member of the business signed in is refused (api/routes/csat/routes.ts).
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { HttpError, conflict, notFound } from '../errors.ts';
import { conversationUpdated, type PendingEvent } from '../events/live.ts';
import { sendMessage } from './messages.ts';

export const DEFAULT_CSAT_QUESTION = 'How would you rate the help you received?';

export const csatSettingsRow = z.object({ enabled: z.boolean(), question: z.string(), updated_at: z.string().nullable() });
export type CsatSettings = z.infer<typeof csatSettingsRow>;

export async function loadCsatSettings(q: Queryable, businessId: string): Promise<CsatSettings> {
  const row = await q.maybeOne(sql.type(csatSettingsRow)`select enabled, question, updated_at from csat_settings where business_id = ${businessId}`);
  return row ?? { enabled: false, question: DEFAULT_CSAT_QUESTION, updated_at: null };
}

export async function updateCsatSettings(tx: Queryable, businessId: string, changes: { enabled?: boolean; question?: string }): Promise<CsatSettings> {
  const current = await loadCsatSettings(tx, businessId);
  const next = { ...current, ...changes };
  return tx.one(sql.type(csatSettingsRow)`
    insert into csat_settings as s (business_id, enabled, question) values (${businessId}, ${next.enabled}, ${next.question})
    on conflict (business_id) do update set enabled = excluded.enabled, question = excluded.question, updated_at = now()
    returning enabled, question, updated_at`);
}

/** A new token for a survey of `businessId`. */
export function newCsatToken(businessId: string): string {
  return Buffer.concat([Buffer.from(businessId.replace(/-/g, ''), 'hex'), randomBytes(18)]).toString('base64url');
}

/** The business id a token names, or null when it is not a token's shape. */
export function businessOfToken(token: string): string | null {
  if (!/^[A-Za-z0-9_-]{46}$/.test(token)) return null;
  const hex = Buffer.from(token, 'base64url').subarray(0, 16).toString('hex');
  if (hex.length !== 32) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const csatPageUrl = (publicUrl: string, token: string) => `${publicUrl}/csat/${token}`;

const requestState = z.object({
  business_id: z.string(),
  status: z.string(),
  channel_id: z.string().nullable(),
  survey_id: z.string().nullable(),
  rated: z.boolean(),
  enabled: z.boolean(),
  question: z.string().nullable(),
});

/** How long a rating link works: 14 days from when it was asked (docs/decisions.md#sla-targets-and-csat). */
export const CSAT_TOKEN_TTL_DAYS = 14;

/**
 * Asks the conversation's customer for a rating (under the conversation's row lock; CSAT off,
 * the conversation no longer resolved, its channel gone, or a rating already given: nothing).
 * Asked before without an answer (reopened and resolved again): the new question replaces the
 * earlier one, whose token stops working. The stored message is the question alone, whatever the
 * channel: the link with the token is added to the text only as the delivery sends it
 * (core/commands/delivery-drain.ts), so no member ever reads a usable token in the thread.
 */
export async function requestCsat(tx: Queryable, conversationId: string): Promise<{ events: PendingEvent[] }> {
  const row = await tx.maybeOne(sql.type(requestState)`
    select c.business_id, c.status, c.channel_id, v.id as survey_id, coalesce(v.rating is not null, false) as rated,
           coalesce(s.enabled, false) as enabled, s.question
    from conversations c
    left join csat_settings s on s.business_id = c.business_id
    left join csat_surveys v on v.business_id = c.business_id and v.conversation_id = c.id
    where c.id = ${conversationId}
    for update of c`);
  if (!row || row.rated || !row.enabled || row.status !== 'resolved' || !row.channel_id || row.question === null) return { events: [] };
  const token = newCsatToken(row.business_id);
  const sent = await sendMessage(tx, {
    businessId: row.business_id,
    conversationId,
    sender: { type: 'system', deliver: true },
    content: row.question,
    attachments: [],
  });
  if (row.survey_id) {
    await tx.query(sql.unsafe`
      update csat_surveys set token = ${token}, message_id = ${sent.message.id}, question = ${row.question}, asked_at = now()
      where id = ${row.survey_id} and rating is null`);
  } else {
    await tx.query(sql.unsafe`
      insert into csat_surveys (business_id, conversation_id, message_id, token, question)
      values (${row.business_id}, ${conversationId}, ${sent.message.id}, ${token}, ${row.question})`);
  }
  return { events: sent.events };
}

export const csatSurveyRow = z.object({
  id: z.string(),
  business_id: z.string(),
  conversation_id: z.string(),
  question: z.string(),
  rating: z.number().nullable(),
  comment: z.string().nullable(),
  asked_at: z.string(),
  rated_at: z.string().nullable(),
  business_name: z.string(),
});
export type CsatSurvey = z.infer<typeof csatSurveyRow>;

/** The survey a token names; null when there is none. */
export async function findCsatSurvey(q: Queryable, token: string): Promise<CsatSurvey | null> {
  const businessId = businessOfToken(token);
  if (!businessId) return null;
  return q.maybeOne(sql.type(csatSurveyRow)`
    select v.id, v.business_id, v.conversation_id, v.question, v.rating, v.comment, v.asked_at, v.rated_at, b.name as business_name
    from csat_surveys v join businesses b on b.id = v.business_id
    where v.business_id = ${businessId} and v.token = ${token}`);
}

/**
 * The customer's rating: once. 404 for an unknown token (or one a later question replaced), 409
 * when it was rated already, 410 when the link is older than CSAT_TOKEN_TTL_DAYS.
 */
export async function rateCsat(
  tx: Queryable,
  token: string,
  input: { rating: number; comment?: string | null },
): Promise<{ survey: CsatSurvey; events: PendingEvent[] }> {
  const businessId = businessOfToken(token);
  if (!businessId) throw notFound('Survey not found');
  const updated = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
    update csat_surveys set rating = ${input.rating}, comment = ${input.comment?.trim() || null}, rated_at = now()
    where business_id = ${businessId} and token = ${token} and rating is null
      and asked_at > now() - make_interval(days => ${CSAT_TOKEN_TTL_DAYS})
    returning id`);
  const survey = await findCsatSurvey(tx, token);
  if (!survey) throw notFound('Survey not found');
  if (!updated && survey.rating === null) throw csatExpired();
  if (!updated) throw conflict('This conversation was rated already');
  return { survey, events: [conversationUpdated({ id: survey.conversation_id, business_id: survey.business_id })] };
}

export const csatExpired = () => new HttpError(410, { detail: 'This rating link has expired' });

/** Whether a survey's link has expired (asked more than CSAT_TOKEN_TTL_DAYS ago). */
export const csatLinkExpired = (survey: Pick<CsatSurvey, 'asked_at'>, nowMs = Date.now()) =>
  nowMs - Date.parse(survey.asked_at) >= CSAT_TOKEN_TTL_DAYS * 86_400_000;
