/**
 * Inbound e-mail by IMAP polling. The position in INBOX is `(uidValidity, lastUid)` in the
 * channel state: each poll takes the messages with a higher UID, in UID order, at most
 * `MAX_PER_POLL` (the rest come next poll). When the server's UIDVALIDITY changes, the old UIDs
 * mean nothing and INBOX is scanned again from the start (repeats are dropped by Message-ID).
 *
 * The IMAP session is behind `InboxSession` so the position logic is tested without a server.
 */
import { ConnectorError, type InboundEvent, type PollResult } from '../types.ts';
import type { ImapSettings } from './config.ts';
import { parseRawEmail } from './parse.ts';

export const MAX_PER_POLL = 50;

export type InboxSession = {
  /** INBOX's UIDVALIDITY, as a decimal string. */
  uidValidity: string;
  /** The UID the next message will get. */
  uidNext: number;
  /** UIDs ≥ `fromUid` in INBOX, ascending. */
  listUids: (fromUid: number) => Promise<number[]>;
  /** The raw source of these messages. */
  fetchSources: (uids: number[]) => Promise<{ uid: number; source: Buffer }[]>;
  close: () => Promise<void>;
};

export type OpenInbox = (settings: ImapSettings) => Promise<InboxSession>;

export type ImapPosition = { uidValidity: string; lastUid: number };

/** The position stored in a channel's state, when there is a valid one. */
export function positionOf(state: Record<string, unknown>): ImapPosition | null {
  const { uidValidity, lastUid } = state;
  if (typeof uidValidity !== 'string' || typeof lastUid !== 'number' || !Number.isInteger(lastUid) || lastUid < 0) return null;
  return { uidValidity, lastUid };
}

/**
 * Where to start: after the stored position; from the start after a UIDVALIDITY change; at the
 * end of INBOX for a channel without a position (connecting a mailbox does not import its past).
 */
export function startingUid(session: Pick<InboxSession, 'uidValidity' | 'uidNext'>, position: ImapPosition | null): { lastUid: number; rescan: boolean } {
  if (!position) return { lastUid: Math.max(0, session.uidNext - 1), rescan: false };
  if (position.uidValidity !== session.uidValidity) return { lastUid: 0, rescan: true };
  return { lastUid: position.lastUid, rescan: false };
}

export async function pollInbox(openInbox: OpenInbox, settings: ImapSettings, state: Record<string, unknown>): Promise<PollResult> {
  const session = await openInbox(settings).catch((error: unknown) => {
    throw imapError(error);
  });
  try {
    const { lastUid: start } = startingUid(session, positionOf(state));
    const uids = (await session.listUids(start + 1))
      .filter((uid) => uid > start)
      .sort((a, b) => a - b)
      .slice(0, MAX_PER_POLL);
    const events: InboundEvent[] = [];
    let lastUid = start;
    if (uids.length > 0) {
      const fetched = (await session.fetchSources(uids)).sort((a, b) => a.uid - b.uid);
      for (const { uid, source } of fetched) {
        const message = await parseRawEmail(source);
        // A message without a sender is skipped for good: nothing could answer it.
        if (message) events.push(message);
        lastUid = Math.max(lastUid, uid);
      }
    }
    return { events, state: { ...state, mode: 'polling', uidValidity: session.uidValidity, lastUid } };
  } catch (error) {
    throw imapError(error);
  } finally {
    await session.close().catch(() => {});
  }
}

/** The current end of INBOX, to start a newly connected mailbox from. */
export async function inboxEnd(openInbox: OpenInbox, settings: ImapSettings): Promise<ImapPosition> {
  const session = await openInbox(settings).catch((error: unknown) => {
    throw imapError(error);
  });
  try {
    return { uidValidity: session.uidValidity, lastUid: Math.max(0, session.uidNext - 1) };
  } finally {
    await session.close().catch(() => {});
  }
}

/** Bad credentials are permanent; anything else (network, server hiccup) is retried. */
export function imapError(error: unknown): ConnectorError {
  if (error instanceof ConnectorError) return error;
  const failure = error as { authenticationFailed?: unknown; responseText?: unknown; message?: unknown } | null;
  const text =
    typeof failure?.responseText === 'string' && failure.responseText !== ''
      ? failure.responseText
      : typeof failure?.message === 'string'
        ? failure.message
        : String(error);
  if (failure?.authenticationFailed === true) return new ConnectorError('permanent', `IMAP authentication failed: ${text}`);
  return new ConnectorError('transient', `IMAP: ${text}`);
}

/** The real session: imapflow on INBOX (loaded on first use: only workers poll, and it is large). */
export const openImapInbox: OpenInbox = async (settings) => {
  const { ImapFlow } = await import('imapflow');
  const client = new ImapFlow({
    host: settings.host,
    ...(settings.servername ? { servername: settings.servername } : {}),
    port: settings.port,
    // 993 is TLS from the first byte; other ports upgrade with STARTTLS when offered.
    secure: settings.port === 993,
    auth: { user: settings.user, pass: settings.password },
    logger: false,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
  });
  // An idle socket error after connect must not crash the worker: the poll fails instead.
  client.on('error', () => {});
  await client.connect();
  let lock: { release: () => void } | undefined;
  try {
    lock = await client.getMailboxLock('INBOX', { readOnly: true });
    const mailbox = client.mailbox;
    if (!mailbox) throw new Error('INBOX could not be opened');
    const exists = mailbox.exists;
    return {
      uidValidity: mailbox.uidValidity.toString(),
      uidNext: mailbox.uidNext,
      async listUids(fromUid) {
        if (exists === 0) return [];
        const uids: number[] = [];
        for await (const message of client.fetch(`${fromUid}:*`, { uid: true }, { uid: true })) uids.push(message.uid);
        return uids;
      },
      async fetchSources(uids) {
        const sources: { uid: number; source: Buffer }[] = [];
        for await (const message of client.fetch(uids.join(','), { uid: true, source: true }, { uid: true })) {
          if (message.source) sources.push({ uid: message.uid, source: message.source });
        }
        return sources;
      },
      async close() {
        lock?.release();
        await client.logout().catch(() => client.close());
      },
    };
  } catch (error) {
    lock?.release();
    client.close();
    throw error;
  }
};
