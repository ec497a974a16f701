/**
 * Private notes and the mentions in them (docs/decisions.md#private-notes-and-mentions). A note
 * is stored by sendMessage as the `note` sender (never delivered, never counted, the
 * conversation left as it was); each member it names gets a mention row, `mention_created` in
 * their user room after commit, and the domain event `mention.created` (the mail to an offline
 * member who may see the conversation: core/subscribers/mention-mail.ts).
 *
 * Lock order (team.ts's business → team_members → conversations): the mentioned memberships
 * first (key share: they cannot be removed until the commit), then sendMessage's conversation.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { badRequest } from '../errors.ts';
import type { DomainEventInput } from '../events/domain.ts';
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
};

const mentionedRow = z.object({ id: z.string() });
const insertedRow = z.object({ id: z.string(), member_id: z.string() });

/** 400 naming the first id that is not an active member of the business; 404 as sendMessage for another business's conversation. */
export async function sendNote(
  tx: Queryable,
  input: SendNoteInput,
): Promise<{ message: Message; mentionIds: string[]; events: PendingEvent[]; domainEvents?: DomainEventInput[] }> {
  const wanted = [...new Set(input.mentions)];
  const members = wanted.length
    ? await tx.any(sql.type(mentionedRow)`
        select tm.id
        from team_members tm
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

  return {
    message: sent.message,
    mentionIds: inserted.map((r) => r.id),
    events: [...sent.events, ...inserted.map((r) => mentionCreated(input.businessId, r.id))],
    // The mentioned members' mail follows from these (core/subscribers/mention-mail.ts).
    domainEvents: inserted.map((r) => ({
      type: 'mention.created' as const,
      businessId: input.businessId,
      conversationId: input.conversationId,
      actor: { type: 'member' as const, userId: input.userId },
      data: { mention_id: r.id, message_id: sent.message.id },
    })),
  };
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
