/**
 * The time the app shows relative times against ("5m", "Overdue 12m", "due 14:05"), ticking
 * every 30 seconds: every view that reads it is drawn again, so an inbox left open does not
 * go on saying "now" of a conversation that has waited an hour.
 */
import { signal } from '@preact/signals';

const TICK_MS = 30_000;

export const now = signal(Date.now());

setInterval(() => (now.value = Date.now()), TICK_MS);
