/**
 * The time the app shows relative times against ("5m", "Overdue 12m", "due 14:05", the WhatsApp
 * window's minutes left). `currentTime()` is Date.now(), and a view that calls it while drawing
 * is drawn again every 30 seconds: an inbox left open does not go on saying "now" of a
 * conversation that has waited an hour. One timer for the whole app.
 */
import { signal } from '@preact/signals';

const TICK_MS = 30_000;

const tick = signal(0);

setInterval(() => tick.value++, TICK_MS);

/** Date.now(); read during a render, it subscribes that view to the 30-second tick. */
export function currentTime(): number {
  void tick.value;
  return Date.now();
}
