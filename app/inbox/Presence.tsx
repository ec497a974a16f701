/**
 * Collision warnings: the teammates viewing or typing in the open conversation (thread header),
 * the customer typing (under the messages), and a teammate replying (above the reply box).
 */
import { me } from '../session.ts';
import { Avatar } from '../ui/Avatar.tsx';
import { typists, viewers, type Typist } from './presence.ts';

type Other = { user_id: string; name: string; state: 'viewing' | 'replying' | 'noting' };

/** Teammates other than me in the conversation: viewing it, or typing a reply or a note. */
export function othersIn(conversationId: string): Other[] {
  const mine = me.value?.user.id;
  const typing = (typists.value[conversationId] ?? []).filter((t) => t.sender_type === 'agent' && t.user_id !== mine);
  const stateOf = (userId: string): Other['state'] => {
    const t = typing.find((x) => x.user_id === userId);
    return !t ? 'viewing' : t.private ? 'noting' : 'replying';
  };
  const others: Other[] = (viewers.value[conversationId] ?? [])
    .filter((v) => v.user_id !== mine)
    .map((v) => ({ user_id: v.user_id, name: v.name, state: stateOf(v.user_id) }));
  // Typing before their presence arrived: shown all the same.
  for (const t of typing)
    if (!others.some((o) => o.user_id === t.user_id)) others.push({ user_id: t.user_id!, name: t.name ?? 'A teammate', state: stateOf(t.user_id!) });
  return others;
}

const says = { viewing: 'is viewing', replying: 'is replying…', noting: 'is writing a note…' };

export function PresenceLine({ conversationId }: { conversationId: string }) {
  const others = othersIn(conversationId);
  return (
    <div class="presence-line" role="status" aria-label="Teammates here" aria-live="polite">
      {others.map((o) => (
        <span key={o.user_id} class={`presence-chip ${o.state}`}>
          <Avatar name={o.name} size={18} />
          <span>
            <strong>{o.name}</strong> {says[o.state]}
          </span>
        </span>
      ))}
    </div>
  );
}

export function CustomerTyping({ conversationId, name }: { conversationId: string; name: string }) {
  const typing = (typists.value[conversationId] ?? []).some((t: Typist) => t.sender_type === 'customer');
  return (
    <div class="typing-line" role="status" aria-live="polite">
      {typing && (
        <span class="typing-indicator">
          <span class="typing-dots" aria-hidden="true">
            <i />
            <i />
            <i />
          </span>
          {name} is typing…
        </span>
      )}
    </div>
  );
}

/** Above the reply box while a teammate replies to the same customer. */
export function CollisionWarning({ conversationId }: { conversationId: string }) {
  const replying = othersIn(conversationId).filter((o) => o.state === 'replying');
  if (!replying.length) return null;
  const names = replying.map((o) => o.name).join(' and ');
  return (
    <p class="collision-warning" role="status">
      <strong>{names}</strong> {replying.length > 1 ? 'are' : 'is'} replying to this customer right now. Check before you send, so they do not get two answers.
    </p>
  );
}
