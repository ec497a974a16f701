/**
 * An agent's reply, sent now (POST /conversations/{id}/messages without `send_at` or `private`):
 * the hot path of the inbox, so it is one statement whenever it can be.
 *
 * A reply on an e-mail conversation carries fields read first (Cc carried over from the thread,
 * the agent's and the channel's signatures: core/domain/email-replies.ts); a reply on any other
 * channel needs none. Rather than read the conversation's channel type before every reply, the
 * reply's statement is tried at once with `unlessEmail`: on an e-mail conversation it stores
 * nothing, and the fields are read and the statement run again. A conversation's channel type
 * never changes, so the second try cannot meet a different answer. With Cc or Bcc given the
 * fields are read first (they are 400 on another channel type, as before).
 *
 * The statement also records the reply's domain events itself (`recordEvents`), so a reply
 * is one round trip to PostgreSQL after authentication, plus the reads of its live events.
 */
import type { Deps } from '../deps.ts';
import { emailReplyFields } from '../domain/email-replies.ts';
import type { Attachment } from '../domain/uploads.ts';
import { runCommand } from './run-command.ts';
import { trySendMessage, type SendMessageInput, type SentMessage } from './messages.ts';

export type AgentReplyInput = {
  businessId: string;
  conversationId: string;
  userId: string;
  content: string;
  attachments: Attachment[];
  template: SendMessageInput['template'];
  cc?: string[];
  bcc?: string[];
  /** The caller's check, for a caller remembered from an earlier request (SendMessageInput.callerCheck). */
  callerCheck?: SendMessageInput['callerCheck'];
};

export async function sendAgentReply(deps: Pick<Deps, 'db' | 'events' | 'logger' | 'config'>, input: AgentReplyInput): Promise<SentMessage> {
  const base: SendMessageInput = {
    businessId: input.businessId,
    conversationId: input.conversationId,
    sender: { type: 'agent', userId: input.userId },
    content: input.content,
    attachments: input.attachments,
    template: input.template ?? null,
    checkReplyWindow: true,
    recordEvents: true,
    callerCheck: input.callerCheck,
  };
  const send = (extra: Partial<SendMessageInput>) => runCommand(deps, (q) => trySendMessage(q, { ...base, ...extra }), { oneStatement: true });
  if (input.cc === undefined && input.bcc === undefined) {
    const sent = await send({ unlessEmail: true });
    if (!('emailFieldsNeeded' in sent)) return sent;
  }
  const email = await emailReplyFields(deps.db, deps.config.encryptionKey, input);
  const sent = await send({ email });
  // Not asked with unlessEmail: the statement stores the reply or throws.
  if ('emailFieldsNeeded' in sent) throw new Error('unreachable: e-mail fields were given');
  return sent;
}
