/**
 * While the tab is hidden, new customer messages count up in the title ("(2) Inbox · Parley") and
 * show a browser notification when the agent allowed them; looking at the tab resets both.
 */
import { onLive } from '../live.ts';
import { unseenMessages } from './title.ts';

export function followNotifications(): () => void {
  const stop = onLive((event) => {
    if (event.name !== 'message_created' || event.payload.sender_type !== 'customer' || !document.hidden) return;
    unseenMessages.value += 1;
    if ('Notification' in window && Notification.permission === 'granted') {
      const note = new Notification('New message in Parley', { body: 'A customer wrote in.', tag: String(event.payload.conversation_id) });
      note.onclick = () => {
        window.focus();
        location.assign(`/app/inbox/${String(event.payload.conversation_id)}`);
      };
    }
  });
  const onVisible = () => {
    if (document.hidden) return;
    unseenMessages.value = 0;
  };
  document.addEventListener('visibilitychange', onVisible);
  return () => {
    stop();
    document.removeEventListener('visibilitychange', onVisible);
  };
}

/** Asks once, from a click (browsers ignore permission prompts without one). */
export function canAskForNotifications(): boolean {
  return 'Notification' in window && Notification.permission === 'default';
}

export async function askForNotifications(): Promise<void> {
  if ('Notification' in window) await Notification.requestPermission();
}
