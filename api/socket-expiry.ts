/**
 * A socket lives no longer than the token it was opened with: it is disconnected at the
 * token's `exp`, so an expired dashboard or visitor session stops receiving events even if it
 * never sends anything.
 */
import type { Socket } from 'socket.io';

/** setTimeout's ceiling (~24.8 days); a later expiry is re-armed when the timer fires. */
const maxTimer = 2 ** 31 - 1;

/** Disconnects `socket` at `exp` (unix seconds); the timer is cleared when the socket goes first. */
export function disconnectAtExpiry(socket: Pick<Socket, 'disconnect' | 'on'>, exp: number): void {
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const remaining = exp * 1000 - Date.now();
    if (remaining <= 0) {
      socket.disconnect(true);
      return;
    }
    timer = setTimeout(arm, Math.min(remaining, maxTimer));
    timer.unref();
  };
  arm();
  socket.on('disconnect', () => clearTimeout(timer));
}
