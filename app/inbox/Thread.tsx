/** The open conversation: header with actions, the AI handoff reason, the messages, the composer. */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { linkClick, navigate } from '../router.ts';
import { me, members } from '../session.ts';
import { channelLabel } from '../channel-types.ts';
import type { Activity, Message } from '../types.ts';
import { ChannelIcon } from '../ui/channels.tsx';
import { Notice } from '../ui/Notice.tsx';
import { inboxUrl, linkedMessage } from './filters.ts';
import { activity, earlier, followThread, loadEarlier, thread, threadError } from './thread-store.ts';
import { useAction } from '../ui/useAction.ts';
import { markUnread } from './unread.ts';
import { AssignActions, StatusActions } from './ConversationActions.tsx';
import { Composer } from './Composer.tsx';
import { ConversationLabels } from './ConversationLabels.tsx';
import { PrioritySelect, SnoozeMenu, snoozeText } from './Triage.tsx';
import { TeamSelect } from './TeamSelect.tsx';
import { CustomerPanel } from './CustomerPanel.tsx';
import { MessageItem } from './MessageItem.tsx';
import { ActivityLine } from './ActivityLine.tsx';
import { CustomerTyping, PresenceLine } from './Presence.tsx';
import { ReplyWindowBar, TemplatePicker, useWindowLeft } from './ReplyWindow.tsx';
import { SlaLine } from './Sla.tsx';
import { CsatCard } from './CsatCard.tsx';
import { ForwardPanel } from './Email.tsx';
import { can } from '../session.ts';

/** How far back a linked message is looked for: 20 pages of 100 (further back, "Show earlier messages" goes on). */
const MAX_PAGES_TO_LINKED = 20;

/**
 * The thread's messages with the activity lines among them, by time (the conversation's own
 * opening is the thread's start: not a line). While earlier messages remain to be shown, only
 * the activity from the first message shown on (the rest belongs among those).
 */
function threadItems(messages: Message[], history: Activity[], complete: boolean): (Message | Activity)[] {
  const first = messages[0]?.created_at;
  const shown = history.filter((a) => a.type !== 'conversation.created' && (complete || !first || a.at >= first));
  const items: (Message | Activity)[] = [...messages, ...shown];
  const at = (item: Message | Activity) => ('sender_type' in item ? item.created_at : item.at);
  return items.sort((a, b) => (at(a) < at(b) ? -1 : at(a) > at(b) ? 1 : 0));
}

export function Thread({ id }: { id: string }) {
  useEffect(() => followThread(id), [id]);
  const log = useRef<HTMLDivElement>(null);
  // Narrow screens keep the customer panel behind a button, and the triage controls behind
  // another, so the messages keep most of a phone's height.
  const [customerOpen, setCustomerOpen] = useState(false);
  const [actionsOpen, setActionsOpen] = useState(false);
  const [templateOpen, setTemplateOpen] = useState(false);
  /** The forward being written: the whole conversation (null ids) or one message. */
  const [forward, setForward] = useState<{ ids: string[] | null } | null>(null);
  useEffect(() => setForward(null), [id]);
  const c = thread.value?.id === id ? thread.value : null;
  const windowLeft = useWindowLeft(c?.reply_window_expires_at ?? null);
  const count = c?.messages.length ?? 0;
  // A new latest message: followed to the bottom when the agent was there (or wrote it);
  // an agent reading further up stays where they are and is told, "New messages ↓".
  const lastMessage = c?.messages.at(-1);
  const atBottom = useRef(true);
  const followedIn = useRef<string | null>(null);
  const [newBelow, setNewBelow] = useState(false);
  const toBottom = () => {
    if (log.current) log.current.scrollTop = log.current.scrollHeight;
    setNewBelow(false);
  };
  useEffect(() => {
    if (!c) return;
    const mine = lastMessage?.sender_type === 'agent' && lastMessage.sender_id === me.value?.user.id;
    if (followedIn.current !== id || atBottom.current || mine) toBottom();
    else setNewBelow(true);
    followedIn.current = id;
  }, [lastMessage?.id, id, Boolean(c)]);
  // Earlier messages go in above: the ones in view stay where they were.
  const older = earlier.value?.id === id ? earlier.value : null;
  const history = activity.value?.id === id ? activity.value.items : [];
  const olderCount = older?.messages.length ?? 0;
  const fromBottom = useRef<number | null>(null);
  const showEarlier = useAction(async () => {
    if (log.current) fromBottom.current = log.current.scrollHeight - log.current.scrollTop;
    await loadEarlier(id);
  });
  useLayoutEffect(() => {
    if (log.current && fromBottom.current !== null) log.current.scrollTop = log.current.scrollHeight - fromBottom.current;
    fromBottom.current = null;
  }, [olderCount]);
  // A link to one message (a search hit, a mention): earlier pages until it is shown, then it is
  // scrolled to, once per link.
  const linked = linkedMessage.value;
  const seek = useRef({ key: '', pages: 0, done: false });
  useEffect(() => {
    if (!c || !linked) return;
    const key = `${id}:${linked}`;
    if (seek.current.key !== key) seek.current = { key, pages: 0, done: false };
    if (seek.current.done) return;
    if (c.messages.some((m) => m.id === linked) || older?.messages.some((m) => m.id === linked)) {
      seek.current.done = true;
      log.current?.querySelector(`[data-id="${linked}"]`)?.scrollIntoView({ block: 'center' });
    } else if (older?.next && !showEarlier.busy && seek.current.pages < MAX_PAGES_TO_LINKED) {
      seek.current.pages += 1;
      void showEarlier.run();
    }
  }, [id, linked, Boolean(c), count, olderCount, older?.next, showEarlier.busy]);
  // Images and players take their height when loaded: stay at the bottom when the agent was there.
  useEffect(() => {
    const box = log.current;
    if (!box) return;
    atBottom.current = true;
    const onScroll = () => {
      atBottom.current = box.scrollHeight - box.scrollTop - box.clientHeight < 80;
      if (atBottom.current) setNewBelow(false);
    };
    const onLoad = () => {
      if (atBottom.current) box.scrollTop = box.scrollHeight;
    };
    box.addEventListener('scroll', onScroll);
    box.addEventListener('load', onLoad, true);
    box.addEventListener('loadedmetadata', onLoad, true);
    return () => {
      box.removeEventListener('scroll', onScroll);
      box.removeEventListener('load', onLoad, true);
      box.removeEventListener('loadedmetadata', onLoad, true);
    };
  }, [id, Boolean(c)]);

  const back = inboxUrl({}, null);
  if (!c)
    return (
      <section class="thread-pane">
        {threadError.value ? (
          <div class="empty">
            <Notice>{threadError.value}</Notice>
          </div>
        ) : (
          <div class="list-loading">
            <div class="spinner" role="status" aria-label="Loading conversation" />
          </div>
        )}
      </section>
    );
  const name = c.customer?.name || 'Visitor';
  const assignee = members.value.find((m) => m.user_id === c.assignee_id);
  const forwardable = c.channel_type === 'email' && Boolean(c.channel_id) && can('conversations.forward');
  return (
    <div class="thread-wrap">
      <section class="thread-pane" aria-label={`Conversation with ${name}`}>
        <header class="thread-header">
          <div class="thread-head-top">
            <a class="back btn ghost" href={back} onClick={(e) => linkClick(e, back)} aria-label="Back to conversations">
              ←
            </a>
            <div class="thread-title">
              <h2>
                {/* Isolated in its own direction, aligned with the rest of the header. */}
                <bdi>{name}</bdi>
              </h2>
              <span class="muted small channel-line">
                <span class="channel-name">
                  <ChannelIcon type={c.channel_type} size={14} /> {channelLabel(c.channel_type)} ·
                </span>{' '}
                <span class={`pill status-${c.status}`}>{c.status}</span> ·{' '}
                {assignee ? (assignee.user_id === me.value?.user.id ? 'Assigned to you' : `Assigned to ${assignee.name}`) : 'Unassigned'}
                {c.snoozed && (
                  <>
                    {' '}
                    · <span class="pill snoozed-pill">{snoozeText(c)}</span>
                  </>
                )}
              </span>
              <ConversationLabels conversation={c} />
              <SlaLine conversation={c} />
            </div>
            <StatusActions conversation={c} />
          </div>
          <PresenceLine conversationId={c.id} />
          <div class="thread-head-bottom">
            <button
              type="button"
              class="btn ghost small actions-toggle"
              aria-expanded={actionsOpen}
              aria-controls="thread-triage"
              onClick={() => setActionsOpen(!actionsOpen)}
            >
              Actions
            </button>
            <div id="thread-triage" class={`actions triage-actions${actionsOpen ? ' open' : ''}`}>
              <AssignActions conversation={c} />
              <SnoozeMenu conversation={c} />
              <PrioritySelect conversation={c} />
              <TeamSelect conversation={c} />
              {forwardable && (
                <button class="btn ghost small" onClick={() => setForward(forward ? null : { ids: null })}>
                  Forward
                </button>
              )}
              {/* To come back to it: unread in the list until opened again (app/inbox/unread.ts). */}
              <button
                type="button"
                class="btn ghost small"
                onClick={() => {
                  markUnread(c.id);
                  navigate(back);
                }}
              >
                Mark unread
              </button>
            </div>
            <button class="btn ghost small customer-toggle" aria-expanded={customerOpen} onClick={() => setCustomerOpen(!customerOpen)}>
              Customer
            </button>
          </div>
        </header>
        {c.handoff_reason && c.status === 'pending' && (
          <div class="handoff" role="note">
            <strong>The AI agent handed this conversation to a human:</strong> {c.handoff_reason}
          </div>
        )}
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: focusable, so the keyboard scrolls the history (WCAG 2.1.1) when no message has a link. */}
        <div class="messages" role="log" aria-label="Messages" aria-live="polite" ref={log} tabIndex={0}>
          {older?.next && (
            <div class="earlier">
              <button type="button" class="btn ghost small" disabled={showEarlier.busy} onClick={() => void showEarlier.run()}>
                {showEarlier.busy ? 'Loading…' : 'Show earlier messages'}
              </button>
              <Notice>{showEarlier.error}</Notice>
            </div>
          )}
          {c.messages.length === 0 && <p class="empty muted">No messages yet. Write the first one below.</p>}
          {threadItems([...(older?.messages ?? []), ...c.messages], history, !older?.next).map((item) =>
            'sender_type' in item ? (
              <MessageItem
                key={item.id}
                message={item}
                customerName={name}
                members={members.value}
                onForward={forwardable ? () => setForward({ ids: [item.id] }) : undefined}
                found={item.id === linked}
              />
            ) : (
              <ActivityLine key={item.id} activity={item} />
            ),
          )}
          {c.csat && <CsatCard csat={c.csat} customerName={name} />}
          {newBelow && (
            <button type="button" class="btn small new-below" onClick={toBottom}>
              New messages ↓
            </button>
          )}
        </div>
        <CustomerTyping conversationId={c.id} name={name} />
        {c.channel_id && c.channel_type === 'whatsapp' && (
          <>
            <ReplyWindowBar conversation={c} left={windowLeft} onTemplate={() => setTemplateOpen(!templateOpen)} />
            {templateOpen && <TemplatePicker conversation={c} onClose={() => setTemplateOpen(false)} />}
          </>
        )}
        {forward && <ForwardPanel key={(forward.ids ?? ['all']).join()} conversationId={c.id} messageIds={forward.ids} onClose={() => setForward(null)} />}
        {!c.channel_id && (
          <Notice kind="info">This conversation's channel was deleted: replies cannot be delivered. Private notes still can be written.</Notice>
        )}
        <Composer
          key={c.id}
          conversationId={c.id}
          channelLabel={channelLabel(c.channel_type)}
          canReply={Boolean(c.channel_id)}
          email={c.channel_type === 'email'}
          closedReason={c.channel_type === 'whatsapp' && !(windowLeft !== null && windowLeft > 0) ? 'The 24-hour window is closed: send a template' : null}
        />
      </section>
      <CustomerPanel conversation={c} open={customerOpen} onClose={() => setCustomerOpen(false)} />
    </div>
  );
}
