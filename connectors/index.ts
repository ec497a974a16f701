/**
 * The registry: every channel type is one connector, one line here. The list of channel types
 * (API enums, webhook routes, `GET /api/v1/channel-types`) is derived from it; the SQL check on
 * `channels.type` must name the same set (test/channel-registry.test.ts).
 */
import type { AnyConnector } from './types.ts';
import webchat from './webchat/index.ts';
import widget from './widget/index.ts';
import email from './email/index.ts';
import whatsapp from './whatsapp/index.ts';
import telegram from './telegram/index.ts';
import instagram from './instagram/index.ts';
import x from './x/index.ts';
import sms from './sms/index.ts';

export const connectors: readonly AnyConnector[] = [webchat, widget, email, whatsapp, telegram, instagram, x, sms];

/** The type of the channel every business has from the start (`is_builtin`). */
export const builtinChannelType = webchat.type;

/** The type of a website widget's channel: the widget product (its API, visitors, /widget socket) is its platform. */
export const widgetChannelType = widget.type;

/** Every channel type, in registry order (a non-empty tuple, as z.enum wants it). */
export const channelTypes = connectors.map((c) => c.type) as [string, ...string[]];

const byType = new Map(connectors.map((c) => [c.type, c]));

export const isChannelType = (value: string): boolean => byType.has(value);

/** The connector of a channel type; every stored type has one (the SQL check allows only these). */
export function connectorFor(type: string): AnyConnector {
  const connector = byType.get(type);
  if (!connector) throw new Error(`No connector for channel type ${JSON.stringify(type)}`);
  return connector;
}
