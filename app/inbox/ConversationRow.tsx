/** One line of the conversation list: who, where, what they said last, when, and whether it is new. */
import { linkClick } from '../router.ts';
import { me, members } from '../session.ts';
import { Avatar } from '../ui/Avatar.tsx';
import { ChannelIcon } from '../ui/channels.tsx';
import { shortTime } from '../ui/time.ts';
import { LabelChip } from '../ui/LabelChip.tsx';
import type { ConversationListItem } from '../types.ts';
import { inboxUrl } from './filters.ts';
import { isUnread } from './unread.ts';
import { SlaMark } from './Sla.tsx';
import { ticked, toggleTicked } from './BulkBar.tsx';
import { PriorityMark, snoozeText } from './Triage.tsx';
import { can } from '../session.ts';
import { draftsChanged, readDraft } from './drafts.ts';

/**
 * What the row says: the latest message a person wrote (the customer's as it is, a reply with
 * its sender), so an automatic message (the away reply, the satisfaction question) never hides
 * what the customer asked; a conversation with only an automatic message says it is one.
 */
function preview(c: ConversationListItem): string {
  const m = c.preview_message ?? c.last_message;
  if (!m) return 'No messages yet';
  const text = m.content || (m.attachments.length ? `Attachment: ${m.attachments[0]?.filename ?? 'file'}` : '');
  if (m.sender_type === 'customer') return text;
  if (m.sender_type === 'ai') return `AI: ${text}`;
  if (m.sender_type === 'system') return m.delivery_status ? `Automatic: ${text}` : text;
  const who = m.sender_id === me.value?.user.id ? 'You' : (members.value.find((x) => x.user_id === m.sender_id)?.name.split(' ')[0] ?? 'Agent');
  return `${who}: ${text}`;
}

export function ConversationRow({ conversation: c, selected }: { conversation: ConversationListItem; selected: boolean }) {
  const unread = isUnread(c) && !selected;
  const name = c.customer?.name || 'Visitor';
  const href = inboxUrl({}, c.id);
  const isTicked = ticked.value.includes(c.id);
  // Read again when a conversation gains or loses a draft.
  draftsChanged.value;
  const draft = !selected && readDraft(me.value?.user.id, c.id) !== null;
  // The last reply did not reach the customer (the thread says why): seen from the list too.
  const last = c.last_message;
  const undelivered = last !== null && last !== undefined && last.sender_type !== 'customer' && last.delivery_status === 'failed';
  return (
    <li class={`conv-row${selected ? ' selected' : ''}${unread ? ' unread' : ''}${isTicked ? ' ticked' : ''}`} data-id={c.id}>
      {can('conversations.bulk') && (
        <label class="conv-tick">
          <input type="checkbox" checked={isTicked} onChange={() => toggleTicked(c.id)} aria-label={`Select ${name}`} />
        </label>
      )}
      <a href={href} onClick={(e) => linkClick(e, href)} aria-current={selected ? 'true' : undefined}>
        <Avatar name={name} />
        <span class="conv-main">
          <span class="conv-top">
            <span class="conv-name" dir="auto">
              {name}
            </span>
            {/* The link's name is what it shows (WCAG 2.5.3), in this order; "unread" is said right after the name. */}
            {unread && <span class="visually-hidden">(unread)</span>}
            <span class="conv-time">{shortTime(c.last_message?.created_at ?? c.updated_at)}</span>
          </span>
          <span class="conv-bottom">
            <ChannelIcon type={c.channel_type} size={14} />
            {draft && <span class="pill draft-pill">Draft</span>}
            {undelivered && (
              <span class="pill undelivered-pill" title={last.error ? `Not delivered: ${last.error}` : 'Not delivered'}>
                Not delivered
              </span>
            )}
            <span class="conv-preview" dir="auto">
              {preview(c)}
            </span>
            <SlaMark conversation={c} />
            {c.status === 'pending' && <span class="pill warn">Pending</span>}
            <PriorityMark priority={c.priority} />
            {unread && <span class="unread-dot" title="Unread" aria-hidden="true" />}
          </span>
          {c.snoozed && <span class="conv-snoozed muted small">{snoozeText(c)}</span>}
          {c.labels.length > 0 && (
            <span class="conv-labels">
              <span class="visually-hidden">Labels:</span>
              {c.labels.map((name) => (
                <LabelChip name={name} />
              ))}
            </span>
          )}
        </span>
      </a>
    </li>
  );
}
