/**
 * Website visitors: a visitor is a customer of a widget's `widget` channel whose
 * platform_user_id is a random visitor id. Their messages go through the inbound pipeline of
 * every other channel (core/commands/inbound.ts): stored as an inbound event with its
 * `process_inbound` job in one transaction, then processed at once in the request, so the
 * visitor gets their message back and the inbox threads it exactly like a platform's message.
 * Should the request die between the two steps, the job finishes the work.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { sql, type Db, type Queryable } from '../adapters/postgres/db.ts';
import { forbidden, invalidCredentials, notFound, tooManyRequests } from '../errors.ts';
import { originAllowed, type OriginRules } from '../domain/visitors/widget-origins.ts';
import type { PendingEvent } from '../events/live.ts';
import type { InboundAttachment, InboundMessage } from '../../connectors/types.ts';
import { processInboundEvent, storeInboundEvents, type InboundChannel } from './inbound.ts';
import { pruneRateWindows, takeRateAllowance, type RateLimit } from '../domain/rate-windows.ts';
import type { VisitorClaims } from '../domain/visitors/visitor-tokens.ts';
import { visitorMessageEvent } from '../domain/visitors/visitor-messages.ts';
import type { VisitorMessage } from '../presenters/visitor-message.ts';
import { currentConversationId, visitorMessageByExternalId } from '../reads/visitor-messages.ts';
import { widgetChannelType } from '../../connectors/index.ts';
import { createReadStream } from 'node:fs';
import type { FileStorage } from '../adapters/storage.ts';
import { storeFile, type UploadRow } from '../domain/uploads.ts';
import { identifyVisitor, type VisitorIdentity } from './visitor-identity.ts';
import { generatedVisitorName } from '../domain/visitors/visitor-names.ts';
import { recordVisitContext, type VisitContextInput } from '../domain/visitors/visitor-context.ts';

/** Messages one visitor may send: 20 per minute. */
export const VISITOR_MESSAGE_RATE: RateLimit = { limit: 20, windowSeconds: 60 };
/** Files one visitor may upload: 20 an hour. */
export const VISITOR_UPLOAD_RATE: RateLimit = { limit: 20, windowSeconds: 3600 };
/** Visitor files one client address may upload, whatever the sessions: 30 an hour (a new session does not reset it). */
export const VISITOR_UPLOAD_RATE_PER_ADDRESS: RateLimit = { limit: 30, windowSeconds: 3600 };
/** Visitor files one widget takes from everyone: 100 an hour. */
export const VISITOR_UPLOAD_RATE_PER_WIDGET: RateLimit = { limit: 100, windowSeconds: 3600 };
/**
 * Bytes website visitors may have uploaded to one business within VISITOR_UPLOAD_BYTES_WINDOW_HOURS
 * (the time an unused visitor file may live before the hourly sweep removes it): 50 MiB, so
 * anonymous visitors can never hold more than that of a plan's storage (Free: 500 MB).
 */
export const VISITOR_UPLOAD_BYTES_PER_BUSINESS = 50 * 1024 * 1024;
export const VISITOR_UPLOAD_BYTES_WINDOW_HOURS = 2;
/** What a visitor may upload: images and PDFs. */
export const visitorUploadType = (contentType: string): boolean => contentType.startsWith('image/') || contentType === 'application/pdf';
/** New visitors one client address may start: 30 per minute (resuming is not counted). */
export const VISITOR_SESSION_RATE: RateLimit = { limit: 30, windowSeconds: 60 };

export type Visitor = {
  customerId: string;
  visitorId: string;
  widgetId: string;
  channelId: string;
  businessId: string;
};

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const widgetNotFound = () => notFound('Widget not found');

/** The widget's active `widget` channel (the oldest, should there be several), or null. */
async function findWidgetChannel(q: Queryable, widgetId: string): Promise<{ channelId: string; businessId: string; domain: string } | null> {
  if (!uuidPattern.test(widgetId)) return null;
  const row = await q.maybeOne(sql.type(z.object({ channel_id: z.string(), business_id: z.string(), domain: z.string() }))`
    select ch.id as channel_id, w.business_id, w.domain
    from widgets w
    join channels ch on ch.business_id = w.business_id and ch.type = ${widgetChannelType} and ch.routing_key = w.id::text and ch.is_active
    where w.id = ${widgetId}
    order by ch.created_at, ch.id limit 1`);
  return row ? { channelId: row.channel_id, businessId: row.business_id, domain: row.domain } : null;
}

const visitorRow = z.object({ customer_id: z.string(), channel_id: z.string(), business_id: z.string(), is_active: z.boolean() });

/**
 * The visitor a verified token names. 401 when it names no customer of the widget's channel
 * any more (the customer or the channel was deleted); 404 `Widget not found` while the
 * channel is inactive.
 */
export async function loadVisitor(q: Queryable, claims: VisitorClaims): Promise<Visitor> {
  const row = await q.maybeOne(sql.type(visitorRow)`
    select coalesce(cu.merged_into, cu.id) as customer_id, ch.id as channel_id, ch.business_id, ch.is_active
    from customers cu join channels ch on ch.id = cu.channel_id
    where cu.platform_user_id = ${claims.visitorId} and (cu.id = ${claims.customerId} or cu.merged_into = ${claims.customerId}) and cu.erasing_at is null
      and ch.type = ${widgetChannelType} and ch.routing_key = ${claims.widgetId}`);
  if (!row) throw invalidCredentials();
  if (!row.is_active) throw widgetNotFound();
  return { customerId: row.customer_id, visitorId: claims.visitorId, widgetId: claims.widgetId, channelId: row.channel_id, businessId: row.business_id };
}

export type StartVisitorSessionInput = {
  widgetId: string;
  /** Stored on the customer when given (trimmed by the route); omitted keeps the stored one. */
  name?: string;
  email?: string;
  /** A verified token the browser already holds; resumed when it is a visitor of this widget. */
  resume: VisitorClaims | null;
  /** For the per-address limit on new visitors. */
  clientAddress: string;
  /** The request's `Origin` header (undefined when absent), checked against the widget's domain. */
  origin: string | undefined;
  originRules: OriginRules;
  /** An identified visitor, signed by the business's server (core/commands/visitor-identity.ts). */
  identity?: VisitorIdentity;
  /** Opens the widget's identity secret (needed with `identity`). */
  encryptionKey?: Uint8Array;
  /** What the widget reports of the visit (page, referrer, language, time zone, pages seen); stored when given. */
  context?: VisitContextInput;
  /** The request's User-Agent header: the visit's browser and system. */
  userAgent?: string;
};

/** `eventsRecorded`: the session's own transaction recorded its domain events (see runCommand). */
export type VisitorSession = { visitor: Visitor; conversationId: string | null; resumed: boolean; events: PendingEvent[]; eventsRecorded: true };

/**
 * 404 when the widget does not exist or has no active channel; 403 when `origin` is a site the
 * widget's domain does not cover (core/domain/visitors/widget-origins.ts); 429 past VISITOR_SESSION_RATE.
 */
export async function startVisitorSession(db: Db, input: StartVisitorSessionInput): Promise<VisitorSession> {
  return db.transaction(async (tx) => {
    const session = await startOrResume(tx, input);
    if (input.context) await recordVisitContext(tx, session.visitor.customerId, input.context, input.userAgent);
    return session;
  });
}

async function startOrResume(tx: Queryable, input: StartVisitorSessionInput): Promise<VisitorSession> {
  {
    const channel = await findWidgetChannel(tx, input.widgetId);
    if (!channel) throw widgetNotFound();
    if (!originAllowed(channel.domain, input.origin, input.originRules)) throw forbidden('This widget may not be used on this site');
    const base = { widgetId: input.widgetId, channelId: channel.channelId, businessId: channel.businessId };
    const { resume } = input;
    if (input.identity) {
      const identified = await identifyVisitor(tx, input.encryptionKey!, {
        ...base,
        identity: input.identity,
        resume: resume && resume.widgetId === input.widgetId ? resume : null,
      });
      const visitor = { ...base, customerId: identified.customerId, visitorId: identified.visitorId };
      return {
        visitor,
        conversationId: await currentConversationId(tx, visitor),
        resumed: identified.existed,
        events: identified.events,
        eventsRecorded: true,
      };
    }
    if (resume && resume.widgetId === input.widgetId) {
      // A visitor merged into another customer resumes as that customer; a record a member edited
      // keeps its name and e-mail (the widget only fills blanks), as inbound messages do.
      const resumed = await tx.maybeOne(sql.type(z.object({ id: z.string(), name: z.string() }))`
        update customers cu set
          name = case when ${input.name ?? null}::text is null or (cu.edited_at is not null and cu.name <> '') then cu.name else ${input.name ?? null} end,
          email = case when cu.edited_at is null then coalesce(${input.email ?? null}, cu.email) else coalesce(cu.email, ${input.email ?? null}) end,
          updated_at = case when ${input.name ?? null}::text is null and ${input.email ?? null}::text is null then cu.updated_at else now() end
        from customers identity
        where identity.id = ${resume.customerId} and identity.channel_id = ${channel.channelId} and identity.platform_user_id = ${resume.visitorId}
          and identity.erasing_at is null
          and cu.id = coalesce(identity.merged_into, identity.id) and cu.erasing_at is null
        returning cu.id, cu.name`);
      if (resumed) {
        // A visitor from before generated names gets one now.
        if (resumed.name === '') {
          const generated = await generatedVisitorName(tx, channel.businessId);
          await tx.query(sql.unsafe`update customers set name = ${generated}, generated_name = ${generated} where id = ${resumed.id} and name = ''`);
        }
        const visitor = { ...base, customerId: resumed.id, visitorId: resume.visitorId };
        return { visitor, conversationId: await currentConversationId(tx, visitor), resumed: true, events: [], eventsRecorded: true };
      }
    }
    const retryAfter = await takeRateAllowance(tx, `session:${input.clientAddress}`, VISITOR_SESSION_RATE);
    if (retryAfter) throw tooManyRequests('Too many new chat sessions from this address; try again later', retryAfter);
    await pruneRateWindows(tx);
    const visitorId = `v_${randomBytes(16).toString('base64url')}`;
    const generated = input.name ? null : await generatedVisitorName(tx, channel.businessId);
    const created = await tx.one(sql.type(z.object({ id: z.string() }))`
      insert into customers (business_id, channel_id, platform_user_id, name, email, generated_name)
      values (${channel.businessId}, ${channel.channelId}, ${visitorId}, ${input.name ?? generated}, ${input.email ?? null}, ${generated})
      returning id`);
    return { visitor: { ...base, customerId: created.id, visitorId }, conversationId: null, resumed: false, events: [], eventsRecorded: true };
  }
}

export type SendVisitorMessageInput = {
  /** 1–10,000 characters (checked by the route). */
  content: string;
  attachments: InboundAttachment[];
  /**
   * The browser's id for this message: a retry with the same id returns the message stored the
   * first time instead of a second one. Generated when absent.
   */
  clientMessageId?: string;
};

/**
 * Stores a visitor's message as an inbound customer message (never refused for plan reasons);
 * 429 past VISITOR_MESSAGE_RATE. Returns the message and the events to publish: the inbox's
 * (when this request processed it) and the visitor's own `/widget` echo for their other tabs.
 */
export async function sendVisitorMessage(
  db: Db,
  visitor: Visitor,
  input: SendVisitorMessageInput,
): Promise<{ message: VisitorMessage; events: PendingEvent[]; eventsRecorded: true }> {
  const externalId = `widget:${visitor.visitorId}:${input.clientMessageId ?? randomUUID()}`;
  const channel: InboundChannel = { id: visitor.channelId, business_id: visitor.businessId, type: widgetChannelType };
  const event: InboundMessage = {
    kind: 'message',
    externalId,
    from: { platformUserId: visitor.visitorId },
    text: input.content,
    attachments: input.attachments,
    sentAt: new Date().toISOString(),
  };
  const eventId = await db.transaction(async (tx) => {
    const retryAfter = await takeRateAllowance(tx, `message:${visitor.customerId}`, VISITOR_MESSAGE_RATE);
    if (retryAfter) throw tooManyRequests('Too many messages; wait a moment before sending more', retryAfter);
    await storeInboundEvents(tx, channel, [event], null);
    // A repeated client id finds the event stored the first time.
    return tx.oneFirst(sql.type(z.object({ id: z.string() }))`
      select id from inbound_events where channel_id = ${channel.id} and dedupe_key = ${externalId}`);
  });
  // Processed here rather than by the job, so the answer carries the message; the job then
  // finds the event processed. Waits on the event's row lock if the worker got there first.
  const events = await processInboundEvent(db, eventId);
  const message = await visitorMessageByExternalId(db, channel.id, externalId);
  // Only a channel deleted meanwhile (its events cascade away) leaves no message.
  if (!message) throw widgetNotFound();
  // processInboundEvent recorded the domain events in its own transaction (webhooks hear of the message once).
  return { message, events: [...events, visitorMessageEvent(visitor.customerId, message)], eventsRecorded: true };
}

/**
 * A website visitor's file (a screenshot, a PDF), stored like an agent's upload and counted
 * against the plan's storage; 429 past VISITOR_UPLOAD_RATE. It belongs to the visitor's current
 * conversation when there is one; the message that carries it (POST /visitor/messages with its
 * URL) shows it in the inbox. Unused, it is removed after a day like every upload.
 */
export async function storeVisitorUpload(
  db: Db,
  storage: FileStorage,
  visitor: Visitor,
  input: { tempPath: string; filename: string; contentType: string; limit: number; clientAddress: string; size: number },
): Promise<UploadRow> {
  return db.transaction(async (tx) => {
    // Per visitor, per client address (new sessions do not reset it) and per widget.
    const retryAfter = Math.max(
      await takeRateAllowance(tx, `upload:${visitor.customerId}`, VISITOR_UPLOAD_RATE),
      await takeRateAllowance(tx, `upload:address:${input.clientAddress}`, VISITOR_UPLOAD_RATE_PER_ADDRESS),
      await takeRateAllowance(tx, `upload:widget:${visitor.widgetId}`, VISITOR_UPLOAD_RATE_PER_WIDGET),
    );
    if (retryAfter) throw tooManyRequests('Too many files; try again later', retryAfter);
    // What visitors uploaded lately, used or not (uploads_business_idx): anonymous bytes are bounded per business.
    const recent = await tx.oneFirst(sql.type(z.object({ bytes: z.number() }))`
      select coalesce(sum(size), 0)::float8 as bytes from uploads
      where business_id = ${visitor.businessId} and created_at > now() - make_interval(hours => ${VISITOR_UPLOAD_BYTES_WINDOW_HOURS})
        and source = 'upload' and uploaded_by is null`);
    if (recent + input.size > VISITOR_UPLOAD_BYTES_PER_BUSINESS) throw tooManyRequests('Too many files from visitors right now; try again later', 15 * 60);
    const conversationId = await currentConversationId(tx, visitor);
    return storeFile(tx, storage, {
      businessId: visitor.businessId,
      conversationId,
      uploadedBy: null,
      source: 'upload',
      filename: input.filename,
      contentType: input.contentType,
      bytes: createReadStream(input.tempPath),
      limit: input.limit,
    });
  });
}
