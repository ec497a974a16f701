/**
 * Private notes and the mentions in them (docs/decisions.md#private-notes-and-mentions). A note
 * is stored by sendMessage as the `note` sender (never delivered, never counted, the
 * conversation left as it was); each member it names gets a mention row, `mention_created` in
 * their user room after commit and, when their availability is `offline`, an e-mail (a
 * `send_email` job in the same transaction).
 *
 * Lock order (team.ts's business → team_members → conversations): the mentioned memberships
 * first (key share: they cannot be removed until the commit), then sendMessage's conversation.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest } from '../errors.ts';
import { enqueue } from '../jobs.ts';
import { mentionCreated, type PendingEvent } from '../events/live.ts';
import type { Message } from '../presenters/message.ts';
import type { Attachment } from '../domain/uploads.ts';
import { sendMessage } from './messages.ts';

/** The most members one note may name. */
export const MAX_MENTIONS = 20;

export type SendNoteInput = {
  businessId: string;
  conversationId: string;
  /** The author (a member of the business). */
  userId: string;
  content: string;
  attachments: Attachment[];
  /** Membership ids (team_members.id) of the business's active members; duplicates count once. */
  mentions: string[];
  /** Base of the link in the e-mail (APP_URL, else the public URL). */
  appUrl: string;
};

const mentionedRow = z.object({ id: z.string(), status: z.string(), email: z.string(), full_name: z.string() });
const insertedRow = z.object({ id: z.string(), member_id: z.string() });

/** 400 naming the first id that is not an active member of the business; 404 as sendMessage for another business's conversation. */
export async function sendNote(tx: Queryable, input: SendNoteInput): Promise<{ message: Message; mentionIds: string[]; events: PendingEvent[] }> {
  const wanted = [...new Set(input.mentions)];
  const members = wanted.length
    ? await tx.any(sql.type(mentionedRow)`
        select tm.id, tm.status, u.email, u.full_name
        from team_members tm join users u on u.id = tm.user_id
        where tm.business_id = ${input.businessId} and tm.is_active and tm.id = any(${sql.array(wanted, 'uuid')})
        order by tm.id
        for key share of tm`)
    : [];
  const known = new Set(members.map((m) => m.id));
  const unknown = wanted.find((id) => !known.has(id));
  if (unknown) throw badRequest(`Mentioned member ${unknown} is not an active member of this business`);

  const sent = await sendMessage(tx, {
    businessId: input.businessId,
    conversationId: input.conversationId,
    sender: { type: 'note', userId: input.userId },
    content: input.content,
    attachments: input.attachments,
  });
  if (!members.length) return { message: sent.message, mentionIds: [], events: sent.events };

  const inserted = await tx.any(sql.type(insertedRow)`
    insert into mentions (business_id, member_id, message_id, conversation_id, mentioned_by, created_at)
    select ${input.businessId}, member_id, ${sent.message.id}, ${input.conversationId}, ${input.userId}, ${sent.message.created_at}::timestamptz
    from unnest(${sql.array(
      members.map((m) => m.id),
      'uuid',
    )}) as ids(member_id)
    returning id, member_id`);

  const offline = members.filter((m) => m.status === 'offline');
  if (offline.length) {
    const author = await tx.oneFirst(sql.type(z.object({ full_name: z.string() }))`select full_name from users where id = ${input.userId}`);
    const link = `${input.appUrl.replace(/\/+$/, '')}/app/inbox/${input.conversationId}?status=any`;
    for (const member of offline) {
      await enqueue(tx, 'send_email', {
        to: member.email,
        subject: `${author} mentioned you in a note on Parley`,
        text: `Hi ${member.full_name},\n\n${author} mentioned you in a private note:\n\n${quote(sent.message.content)}\n\nOpen the conversation:\n\n${link}\n`,
      });
    }
  }
  return {
    message: sent.message,
    mentionIds: inserted.map((r) => r.id),
    events: [...sent.events, ...inserted.map((r) => mentionCreated(input.businessId, r.id))],
  };
}

/** The note as an e-mail quote, cut at 1,000 characters. */
function quote(text: string): string {
  const cut = text.length > 1000 ? `${text.slice(0, 1000)}…` : text;
  return cut
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

/**
 * Marks the member's own mention read (the first time only: `read_at` keeps the first). Null when
 * the mention is not theirs (another member's, another business's, or none).
 */
export async function markMentionRead(q: Queryable, input: { businessId: string; memberId: string; mentionId: string }): Promise<string | null> {
  return q.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    update mentions set read_at = coalesce(read_at, now())
    where business_id = ${input.businessId} and id = ${input.mentionId} and member_id = ${input.memberId}
    returning id`);
}
