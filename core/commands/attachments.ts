/**
 * Inbound media into storage (fetch_attachment {message_id, index}): a customer's photo, voice
 * note or document is downloaded from the platform with the channel's credentials, checked
 * (size against MAX_ATTACHMENT_BYTES before and while reading; the real type sniffed from the
 * bytes), stored through the storage driver, and the message's attachment then carries our URL,
 * type and size (`status: stored`), with `message_updated` published.
 *
 * Lifecycle of an inbound attachment (messages.attachments[i].status):
 *  - `pending`: stored with the message by the inbound drain, which enqueued the job in the
 *    same transaction (only for connectors that can download: `fetchMedia`).
 *  - `stored`: `url` is ours (the platform's is kept in `source_url`).
 *  - `failed`: the metadata stays, `error` says why. Permanent refusals (too large, expired
 *    link, bad credentials) fail at once; transient ones (network, 5xx, 429) retry with
 *    graphile-worker's backoff and fail after the last attempt.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { FileTooLargeError } from '../adapters/storage.ts';
import { storageFor } from '../adapters/storage-for.ts';
import { HttpError } from '../errors.ts';
import type { Deps } from '../deps.ts';
import { enqueue } from '../jobs.ts';
import { messageUpdated, publishEvents } from '../events/live.ts';
import { cleanFilename, storeFile, uploadUrl } from '../domain/uploads.ts';
import { decideContentType, defaultFilename } from '../domain/sniff.ts';
import { loadChannel } from './channel-runtime.ts';
import { connectorFor } from '../../connectors/index.ts';
import { connectorContext } from '../domain/channels/connector-context.ts';
import { ConnectorError, type InboundAttachment, type InboundMessage } from '../../connectors/types.ts';

/** Bytes looked at to sniff the type. */
const SNIFF_BYTES = 64;

/**
 * The attachments as the message stores them: pending where the channel can download them,
 * without the bytes an e-mail part carried (those stay in the stored event).
 */
export function storableAttachments(channelType: string, message: InboundMessage): InboundMessage {
  const downloads = connectorFor(channelType).fetchMedia !== undefined;
  const attachments = message.attachments.map(({ content_base64: _bytes, ...attachment }) => (downloads ? { ...attachment, status: 'pending' } : attachment));
  return { ...message, attachments };
}

/** One fetch_attachment job per pending attachment of these messages, in the caller's transaction. */
export async function enqueueAttachmentFetches(tx: Queryable, messageIds: string[]): Promise<void> {
  if (messageIds.length === 0) return;
  const pending = await tx.any(sql.type(z.object({ id: z.string(), idx: z.number() }))`
    select m.id, (a.n - 1)::int as idx
    from messages m cross join lateral jsonb_array_elements(m.attachments) with ordinality as a(item, n)
    where m.id = any(${sql.array(messageIds, 'uuid')}) and a.item->>'status' = 'pending'`);
  for (const row of pending) await enqueue(tx, 'fetch_attachment', { message_id: row.id, index: row.idx });
}

const attachmentRow = z.object({
  business_id: z.string(),
  conversation_id: z.string(),
  channel_id: z.string().nullable(),
  external_id: z.string().nullable(),
  attachment: z.record(z.string(), z.unknown()).nullable(),
  /** The attachment as the platform gave it (e-mail: with its bytes), from the stored event. */
  original: z.record(z.string(), z.unknown()).nullable(),
});

export type FetchOutcome = 'stored' | 'failed' | 'skipped';

/** Reads the first bytes for sniffing, then yields everything. */
async function peek(source: AsyncIterable<Uint8Array>): Promise<{ head: Uint8Array; body: AsyncIterable<Uint8Array> }> {
  const iterator = source[Symbol.asyncIterator]();
  const held: Uint8Array[] = [];
  let length = 0;
  let done = false;
  while (length < SNIFF_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    held.push(next.value);
    length += next.value.byteLength;
  }
  const head = Buffer.concat(held.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength))).subarray(0, SNIFF_BYTES);
  return {
    head,
    body: (async function* () {
      yield* held;
      if (done) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    })(),
  };
}

/**
 * Downloads and stores one attachment. `lastAttempt`: a transient failure marks it failed
 * instead of throwing (the job's retries are used up). Safe to run twice: a stored or failed
 * attachment is left alone.
 */
export async function fetchAttachment(deps: Deps, input: { messageId: string; index: number; lastAttempt: boolean }): Promise<FetchOutcome> {
  const row = await deps.db.maybeOne(sql.type(attachmentRow)`
    select m.business_id, m.conversation_id, m.channel_id, m.external_id, m.attachments->${input.index}::int as attachment,
           (select e.event->'attachments'->${input.index}::int from inbound_events e
            where e.channel_id = m.channel_id and e.dedupe_key = m.external_id and e.business_id = m.business_id) as original
    from messages m where m.id = ${input.messageId}`);
  if (!row?.attachment || row.attachment.status !== 'pending' || !row.channel_id) return 'skipped';
  const attachment = {
    ...(row.original ?? {}),
    ...row.attachment,
    ...(row.original?.content_base64 ? { content_base64: row.original.content_base64 } : {}),
  } as InboundAttachment & Record<string, unknown>;

  const fail = async (reason: string): Promise<FetchOutcome> => {
    deps.logger.info({ message_id: input.messageId, index: input.index, reason }, 'inbound attachment not stored');
    await settle(deps, row, input, { status: 'failed', error: reason.slice(0, 500) });
    return 'failed';
  };

  const channel = await loadChannel(deps.db, deps.config.encryptionKey, row.channel_id);
  if (!channel) return fail('The channel was deleted');
  const connector = connectorFor(channel.type);
  if (!connector.fetchMedia) return fail(`${connector.label} media cannot be downloaded`);
  const limit = deps.config.MAX_ATTACHMENT_BYTES;
  const limitText = `${Math.round(limit / (1024 * 1024))} MB`;
  if (typeof attachment.size === 'number' && attachment.size > limit) return fail(`The file is larger than ${limitText}`);

  try {
    const download = await connector.fetchMedia(channel.config, attachment, connectorContext(deps.config, connector));
    if (download.size !== undefined && download.size > limit) {
      download.cancel();
      return fail(`The file is larger than ${limitText}`);
    }
    const { head, body } = await peek(download.body);
    const named = typeof attachment.filename === 'string' && attachment.filename !== '' ? attachment.filename : download.filename;
    const declared =
      (typeof attachment.content_type === 'string' && !attachment.content_type.endsWith('/*') ? attachment.content_type : undefined) ?? download.contentType;
    const contentType = decideContentType(head, declared, named ?? '');
    const filename = cleanFilename(named ?? defaultFilename(contentType));
    const storage = storageFor(deps.config.STORAGE_DRIVER, deps.config);
    const stored = await deps.db
      .transaction(async (tx) => {
        const upload = await storeFile(tx, storage, {
          businessId: row.business_id,
          conversationId: row.conversation_id,
          uploadedBy: null,
          source: 'inbound',
          filename,
          contentType,
          bytes: body,
          limit,
        });
        const { url: sourceUrl, content_base64: _bytes, error: _error, ...kept } = attachment;
        const updated = await writeAttachment(tx, input, {
          ...kept,
          ...(typeof sourceUrl === 'string' ? { source_url: sourceUrl } : {}),
          url: uploadUrl(deps.config.publicUrl, upload.storage_key),
          filename: upload.filename,
          content_type: upload.content_type,
          size: upload.size,
          status: 'stored',
        });
        // Someone else stored it meanwhile: this copy goes with the rollback.
        if (!updated) throw new AlreadySettled();
        return upload;
      })
      .catch((error) => {
        if (error instanceof AlreadySettled) return null;
        throw error;
      });
    if (!stored) return 'skipped';
    await publishEvents(deps, [messageUpdated(row.business_id, input.messageId)]);
    return 'stored';
  } catch (error) {
    if (error instanceof FileTooLargeError) return fail(`The file is larger than ${limitText}`);
    // The plan's storage is full: kept as a link-less attachment with the reason, not retried.
    if (error instanceof HttpError && error.status === 402) return fail(String((error.body as { message?: string }).message ?? "The plan's storage is full"));
    const failure = error instanceof ConnectorError ? error : new ConnectorError('transient', (error as Error)?.message ?? String(error));
    if (failure.kind === 'permanent' || input.lastAttempt) return fail(failure.message);
    throw failure;
  }
}

class AlreadySettled extends Error {}

/** Replaces attachment `index` while it is still pending; false when it no longer is. */
async function writeAttachment(q: Queryable, input: { messageId: string; index: number }, value: Record<string, unknown>): Promise<boolean> {
  const updated = await q.maybeOne(sql.type(z.object({ id: z.string() }))`
    update messages set attachments = jsonb_set(attachments, array[${String(input.index)}], ${sql.jsonb(value as never)}), updated_at = now()
    where id = ${input.messageId} and attachments->${input.index}::int->>'status' = 'pending'
    returning id`);
  return updated !== null;
}

async function settle(
  deps: Deps,
  row: z.infer<typeof attachmentRow>,
  input: { messageId: string; index: number },
  patch: Record<string, unknown>,
): Promise<void> {
  const { content_base64: _bytes, ...kept } = row.attachment ?? {};
  if (await writeAttachment(deps.db, input, { ...kept, ...patch })) {
    await publishEvents(deps, [messageUpdated(row.business_id, input.messageId)]);
  }
}
