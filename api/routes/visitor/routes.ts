/**
 * The visitor API: what the embedded website widget (GET /widget.js) calls from any origin.
 * A visitor starts or resumes a session (no token), then writes and reads with its visitor
 * token. Live replies come over the `/widget` socket (api/realtime-widget.ts).
 */
import { stat } from 'node:fs/promises';
import { z } from '../../../lib/zod.ts';
import { listVisitorMessages } from '../../../core/reads/visitor-messages.ts';
import {
  sendVisitorMessage,
  startVisitorSession,
  storeVisitorUpload,
  VISITOR_MESSAGE_RATE,
  VISITOR_SESSION_RATE,
  VISITOR_UPLOAD_RATE,
  VISITOR_UPLOAD_RATE_PER_ADDRESS,
  VISITOR_UPLOAD_RATE_PER_WIDGET,
  VISITOR_UPLOAD_BYTES_PER_BUSINESS,
  VISITOR_UPLOAD_BYTES_WINDOW_HOURS,
  visitorUploadType,
} from '../../../core/commands/visitors.ts';
import { storageFor } from '../../../core/adapters/storage-for.ts';
import { maxUploadBytes, resolveVisitorAttachments, uploadUrl } from '../../../core/domain/uploads.ts';
import { multipart, uploadedFile } from '../../multipart-upload.ts';
import { uploadResponse } from '../conversations/schema.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { issueVisitorToken, verifyVisitorToken } from '../../../core/domain/visitors/visitor-tokens.ts';
import { clientAddress } from '../../middlewares/client-address.ts';
import { defineRoute } from '../../route.ts';
import { listVisitorMessagesQuery, sendVisitorMessageBody, sessionResponse, startSessionBody, visitorMessageSchema } from './schema.ts';
import widgetScript from './script.ts';

const tags = ['Website visitors'];

const visitorAuth =
  'Authenticated with `Authorization: Bearer <visitor_token>` (from POST /api/v1/visitor/sessions). No header: 401 `Not authenticated`; ' +
  'a bad or expired token, an access token, or a visitor that no longer exists: 401 `Could not validate credentials`. ' +
  "The widget's channel made inactive: 404 `Widget not found`. Any origin may call it (CORS `*`). See docs/decisions.md#website-widget-and-visitors.";

export const startSession = defineRoute({
  method: 'post',
  path: '/api/v1/visitor/sessions',
  summary: "Start or resume a website visitor's chat (no token)",
  description:
    "Finds the widget's active `widget` channel (404 `Widget not found` when the widget does not exist or its channel is inactive or deleted). " +
    'With a valid `visitor_token` of this widget that visitor is resumed (`resumed: true`); any other token is ignored and a new visitor starts: ' +
    'a customer of the widget channel whose platform id is a random visitor id, named by `name` or else by a generated friendly name (`Amber Otter`) no other customer of the business has, until they give theirs. `name` and `email` update the customer when given. ' +
    '`context` (page, referrer, language, time zone, pages seen) is kept for agents with the browser and system of the User-Agent. ' +
    `At most ${VISITOR_SESSION_RATE.limit} new visitors per minute from one client address (429 with \`Retry-After\`); resuming is not limited. ` +
    "`conversation_id` is where the next message goes: the visitor's latest conversation unless it is closed, else null (the first message opens one). " +
    "The page must be on the widget's `domain` or one of its subdomains, judged by the `Origin` header (only the host counts; `*` allows every site; " +
    'pages on localhost and 127.0.0.1 are allowed unless NODE_ENV=production): another site gets 403 `{detail}`. A request without `Origin` ' +
    'comes from no web page (a mobile app, a server) and is allowed. ' +
    "With `identity` (identity verification: `user_hash` = hex HMAC-SHA256 of `external_id`, else `email`, under the widget's identity secret) the visitor is the customer of that " +
    'identity on this widget, on every device, with their conversations (the anonymous visitor of `visitor_token` is merged into it); a wrong hash, or a widget without a secret, is 401 ' +
    'and nothing changes; attributes are checked like PATCH /customers/{id} (422). An identified session is not counted against the per-address limit. ' +
    "The widget calls it with a visitor's first message (and on page loads of a visitor who already has a token), never for a mere page view, so page views make no customers. Any origin may call it (CORS `*`). See docs/decisions.md#website-widget-and-visitors and docs/decisions.md#rate-and-size-limits.",
  tags,
  auth: 'none',
  publicCors: true,
  body: startSessionBody,
  response: sessionResponse,
  errors: [403, 404, 409, 429],
  handler: async ({ body, deps, ctx }) => {
    const resume = body.visitor_token ? await verifyVisitorToken(deps.config.jwtSecret, body.visitor_token) : null;
    // startVisitorSession runs its own transaction; an identification that merged an anonymous visitor has events to publish.
    const session = await runCommand(
      deps,
      () =>
        startVisitorSession(deps.db, {
          widgetId: body.widget_id,
          name: body.name,
          email: body.email,
          resume,
          clientAddress: clientAddress(ctx, deps.config.TRUST_PROXY_HOPS),
          origin: ctx.get('Origin') || undefined,
          originRules: { allowLocalhost: deps.config.NODE_ENV !== 'production' },
          identity: body.identity,
          encryptionKey: deps.config.encryptionKey,
          context: body.context,
          userAgent: ctx.get('User-Agent') || undefined,
        }),
      { oneStatement: true },
    );
    const { visitor } = session;
    return {
      visitor_token: await issueVisitorToken(deps.config.jwtSecret, {
        customerId: visitor.customerId,
        widgetId: visitor.widgetId,
        visitorId: visitor.visitorId,
      }),
      visitor_id: visitor.visitorId,
      conversation_id: session.conversationId,
      resumed: session.resumed,
    };
  },
});

export const sendMessage = defineRoute({
  method: 'post',
  path: '/api/v1/visitor/messages',
  summary: 'A website visitor writes in (visitor token)',
  description:
    "Stored as an inbound `customer` message of the widget channel, threaded like every channel's messages: into the visitor's latest conversation " +
    '(a resolved one reopens), or a new `open` conversation with `channel_type` `widget` when there is none or it is closed. ' +
    "The agent inbox gets `conversation_created`, `message_created` and `conversation_updated`; the visitor's `/widget` sockets get `message_created`. " +
    'Never refused for plan reasons and not counted as a sent message. ' +
    `At most ${VISITOR_MESSAGE_RATE.limit} messages per visitor per minute (429 with \`Retry-After\`). ` +
    'A repeated `client_message_id` returns the message stored the first time. ' +
    visitorAuth,
  tags,
  auth: 'visitor',
  publicCors: true,
  body: sendVisitorMessageBody,
  response: visitorMessageSchema,
  errors: [404, 429],
  handler: async ({ body, caller, deps }) => {
    // sendVisitorMessage keeps its own atomicity on the pool (its own transaction when it needs one).
    const { message } = await runCommand(
      deps,
      async () => {
        // Files the visitor uploaded here carry their stored name, type and size.
        const attachments = await resolveVisitorAttachments(deps.db, {
          businessId: caller.businessId,
          publicUrl: deps.config.publicUrl,
          attachments: body.attachments,
        });
        return sendVisitorMessage(deps.db, caller, { content: body.content, attachments, clientMessageId: body.client_message_id });
      },
      { oneStatement: true },
    );
    return message;
  },
});

export const listMessages = defineRoute({
  method: 'get',
  path: '/api/v1/visitor/messages',
  summary: "A website visitor's conversation (visitor token)",
  description:
    "The newest `limit` messages of the visitor's current conversation (the latest unless it is closed; none: `[]`), or of `conversation_id`, " +
    "oldest first: the visitor's own, the agents' and the AI agent's; system messages and internal fields are never shown. " +
    "Another visitor's conversation (of this widget or any other): 404 `Conversation not found`. " +
    visitorAuth,
  tags,
  auth: 'visitor',
  publicCors: true,
  query: listVisitorMessagesQuery,
  response: z.array(visitorMessageSchema),
  errors: [404],
  handler: async ({ query, caller, deps }) => {
    return listVisitorMessages(deps.db, caller, { conversationId: query.conversation_id, limit: query.limit });
  },
});

export const uploadFile = defineRoute({
  method: 'post',
  path: '/api/v1/visitor/uploads',
  summary: 'A website visitor uploads a file (visitor token)',
  description:
    'Multipart form with the file in field `file`: an image (JPEG, PNG, GIF, WebP, HEIC) or a PDF, at most 10 MiB (413; anything else 415). ' +
    `At most ${VISITOR_UPLOAD_RATE.limit} files per visitor, ${VISITOR_UPLOAD_RATE_PER_ADDRESS.limit} per client address (whatever the sessions) and ${VISITOR_UPLOAD_RATE_PER_WIDGET.limit} per widget an hour, ` +
    `and ${VISITOR_UPLOAD_BYTES_PER_BUSINESS / 1024 / 1024} MiB from all visitors of the business within ${VISITOR_UPLOAD_BYTES_WINDOW_HOURS} hours (429 with \`Retry-After\`). The business's plan storage full: 402 \`limit_exceeded\`/\`storage\`. ` +
    'Returns `{url, filename, content_type, size}`: send it in `attachments` of POST /api/v1/visitor/messages and the agents see it like any attachment. ' +
    'An upload no message uses is removed within two hours (the hourly sweep of uploads older than one). ' +
    visitorAuth,
  tags,
  auth: 'visitor',
  publicCors: true,
  bodyParser: multipart,
  response: uploadResponse,
  errors: [402, 404, 413, 415, 429],
  handler: async ({ caller, deps, ctx }) => {
    const file = uploadedFile(ctx, visitorUploadType);
    const row = await storeVisitorUpload(deps.db, storageFor(deps.config.STORAGE_DRIVER, deps.config), caller, {
      tempPath: file.path,
      filename: file.filename,
      contentType: file.contentType,
      limit: maxUploadBytes,
      clientAddress: clientAddress(ctx, deps.config.TRUST_PROXY_HOPS),
      size: (await stat(file.path)).size,
    });
    return { url: uploadUrl(deps.config.publicUrl, row.storage_key), filename: row.filename, content_type: row.content_type, size: row.size };
  },
});

export default [startSession, sendMessage, listMessages, uploadFile, widgetScript];
