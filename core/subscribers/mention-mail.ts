/**
 * Mention mail: a member named in a private note while their availability is `offline` gets an
 * e-mail with the note and a link, only if they may see the conversation (team-scoped
 * visibility: docs/decisions.md#teams-and-team-scoped-visibility) and still are a member.
 */
import { z } from 'zod';
import { sql } from '../adapters/postgres/db.ts';
import { enqueue } from '../jobs.ts';
import { conversationAudiences } from '../domain/team-visibility.ts';
import { defineSubscriber } from '../events/subscriber.ts';

const mentionRow = z.object({
  business_id: z.string(),
  conversation_id: z.string(),
  user_id: z.string(),
  email: z.string(),
  full_name: z.string(),
  author: z.string(),
  content: z.string(),
});

/** The note as an e-mail quote, cut at 1,000 characters. */
function quote(text: string): string {
  const cut = text.length > 1000 ? `${text.slice(0, 1000)}…` : text;
  return cut
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

export default defineSubscriber({
  name: 'mention_mail',
  handle: async (tx, events, deps) => {
    const ids = events.map((e) => (e.data as { mention_id: string }).mention_id);
    const mentions = await tx.any(sql.type(mentionRow)`
      select mn.business_id, mn.conversation_id, tm.user_id, u.email, u.full_name, a.full_name as author, m.content
      from mentions mn
      join team_members tm on tm.id = mn.member_id and tm.business_id = mn.business_id and tm.is_active and tm.status = 'offline'
      join users u on u.id = tm.user_id
      join users a on a.id = mn.mentioned_by
      join messages m on m.id = mn.message_id
      where mn.id = any(${sql.array(ids, 'uuid')})
      order by mn.created_at, mn.id`);
    const appUrl = (deps.config.APP_URL ?? deps.config.publicUrl).replace(/\/+$/, '');
    for (const mention of mentions) {
      const audiences = await conversationAudiences(tx, mention.business_id, [mention.conversation_id]);
      if (audiences && !audiences.get(mention.conversation_id)?.has(mention.user_id)) continue;
      const link = `${appUrl}/app/inbox/${mention.conversation_id}?status=any`;
      await enqueue(tx, 'send_email', {
        to: mention.email,
        subject: `${mention.author} mentioned you in a note on Parley`,
        text: `Hi ${mention.full_name},\n\n${mention.author} mentioned you in a private note:\n\n${quote(mention.content)}\n\nOpen the conversation:\n\n${link}\n`,
      });
    }
  },
});
