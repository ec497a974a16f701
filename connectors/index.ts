/** Every platform connector by channel type. webchat and widget have none: Parley is their platform. */
import type { AnyConnector } from './types.ts';
import telegram from './telegram/index.ts';
import whatsapp from './whatsapp/index.ts';
import instagram from './instagram/index.ts';
import sms from './sms/index.ts';
import email from './email/index.ts';
import x from './x/index.ts';

const connectors: Record<string, AnyConnector> = { telegram, whatsapp, instagram, sms, email, x };

/** The connector of a channel type, or null for the types Parley serves itself. */
export function connectorFor(type: string): AnyConnector | null {
  return connectors[type] ?? null;
}
