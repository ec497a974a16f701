/**
 * Who else is in a conversation, live: the teammates viewing it (`conversation_presence`, sent
 * whenever someone opens or leaves it) and who is typing (`typing`, from the customer or a
 * teammate, a reply or a note). Nothing is stored by the server: a typing state disappears
 * TYPING_EXPIRES_MS after its last update, so a lost stop never leaves "is typing…" behind.
 * The agent's own typing is sent from here too, throttled to one event per TYPING_REPEAT_MS.
 *
 * The timings are the server's catalogue (core/events/catalogue.ts), repeated here because the
 * app imports no server code.
 */
import { signal } from '@preact/signals';
import { onLive, onResync, sendTyping } from '../live.ts';

export const TYPING_REPEAT_MS = 2500;
export const TYPING_EXPIRES_MS = 6000;
/** A pause this long in typing counts as having stopped. */
const TYPING_IDLE_MS = 4000;

export type Viewer = { user_id: string; member_id: string; name: string };
/** `key`: 'customer' or the teammate's user id. */
export type Typist = { key: string; sender_type: 'customer' | 'agent'; user_id: string | null; name: string | null; private: boolean };

/** Teammates viewing each conversation (as the server last said), by conversation id. */
export const viewers = signal<Record<string, Viewer[]>>({});
/** Who is typing in each conversation now, by conversation id. */
export const typists = signal<Record<string, Typist[]>>({});

const expiries = new Map<string, ReturnType<typeof setTimeout>>();

function setTypist(conversationId: string, typist: Typist, typing: boolean): void {
  const id = `${conversationId}:${typist.key}`;
  clearTimeout(expiries.get(id));
  expiries.delete(id);
  const others = (typists.value[conversationId] ?? []).filter((t) => t.key !== typist.key);
  const next = typing ? [...others, typist] : others;
  typists.value = { ...typists.value, [conversationId]: next };
  if (typing)
    expiries.set(
      id,
      setTimeout(() => setTypist(conversationId, typist, false), TYPING_EXPIRES_MS),
    );
}

onLive(({ name, payload }) => {
  const conversationId = payload.conversation_id as string;
  if (name === 'conversation_presence') {
    viewers.value = { ...viewers.value, [conversationId]: payload.viewers as Viewer[] };
  } else if (name === 'typing') {
    const agent = payload.sender_type === 'agent';
    const typist: Typist = {
      key: agent ? (payload.user_id as string) : 'customer',
      sender_type: agent ? 'agent' : 'customer',
      user_id: agent ? (payload.user_id as string) : null,
      name: agent ? (payload.name as string) : null,
      private: payload.private === true,
    };
    setTypist(conversationId, typist, payload.typing === true);
  } else if (name === 'message_created' && payload.sender_type === 'customer') {
    // The customer's message is what they were typing.
    setTypist(conversationId, { key: 'customer', sender_type: 'customer', user_id: null, name: null, private: false }, false);
  }
});

// A new connection starts over: the joins it makes bring fresh presence.
onResync(() => {
  for (const timer of expiries.values()) clearTimeout(timer);
  expiries.clear();
  viewers.value = {};
  typists.value = {};
});

/**
 * The agent's own typing in one conversation: `input` on every change of the text, `stop` when
 * it is sent or left. Sends `typing: true` at once, again at most every TYPING_REPEAT_MS while
 * the text changes (or when switching between reply and note), and `typing: false` when the
 * text is emptied, sent, left, or untouched for TYPING_IDLE_MS.
 */
export function typingSender(conversationId: string, send = sendTyping) {
  let active = false;
  let sentPrivate = false;
  let lastSent = 0;
  let idle: ReturnType<typeof setTimeout> | undefined;
  const stop = () => {
    clearTimeout(idle);
    if (active) send(conversationId, false, sentPrivate);
    active = false;
  };
  return {
    input(text: string, isPrivate: boolean): void {
      if (!text.trim()) return stop();
      const at = Date.now();
      if (!active || isPrivate !== sentPrivate || at - lastSent >= TYPING_REPEAT_MS) {
        send(conversationId, true, isPrivate);
        active = true;
        sentPrivate = isPrivate;
        lastSent = at;
      }
      clearTimeout(idle);
      idle = setTimeout(stop, TYPING_IDLE_MS);
    },
    stop,
  };
}
