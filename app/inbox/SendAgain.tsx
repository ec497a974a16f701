/**
 * "Send again" under a reply that failed (docs/decisions.md#messages-and-delivery): the server
 * puts the same reply back into the conversation's delivery as if written now, so the thread
 * (read again) shows it last, "Sending…", then its ticks. A refusal (the WhatsApp window closed,
 * the channel deleted) is said beside it.
 */
import { api } from '../api.ts';
import type { Message } from '../types.ts';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { loadThread } from './thread-store.ts';

export function SendAgain({ message: m }: { message: Message }) {
  const act = useAction(async () => {
    try {
      await api.post(`/api/v1/conversations/${m.conversation_id}/messages/${m.id}/retry`);
    } finally {
      await loadThread(m.conversation_id);
    }
  });
  return (
    <>
      <button type="button" class="btn xsmall send-again" disabled={act.busy} onClick={() => void act.run()}>
        {act.busy ? 'Sending…' : 'Send again'}
      </button>
      <Notice>{act.error}</Notice>
    </>
  );
}
