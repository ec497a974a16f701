/**
 * WhatsApp Cloud API connector (plain fetch against Graph; Meta ships no Node SDK worth the
 * weight). One webhook URL serves every WhatsApp channel: the route finds the channel by the
 * event's routingKey (`metadata.phone_number_id`), then checks the signature with its app secret.
 */
import { z } from 'zod';
import type { Connector } from '../types.ts';
import { checkGraphAccount, graphUrl, verifyMetaSignature } from '../meta.ts';
import { parseWhatsAppWebhook } from './parse.ts';
import { sendWhatsAppMessage } from './send.ts';

export { verifyMetaSubscription, metaSignature } from '../meta.ts';
export { parseWhatsAppWebhook } from './parse.ts';

const requiredString = z.string().trim().min(1);

export const whatsappConfigSchema = z.object({
  phone_number_id: requiredString,
  access_token: requiredString,
  /** Echoed by Meta's GET handshake; the channel route generates one when absent. */
  verify_token: requiredString.optional(),
  /** The Meta app secret; when set, every POST must carry a valid X-Hub-Signature-256. */
  app_secret: requiredString.optional(),
});

export type WhatsAppConfig = z.infer<typeof whatsappConfigSchema>;

const whatsapp: Connector<WhatsAppConfig> = {
  type: 'whatsapp',
  configSchema: whatsappConfigSchema,
  secretFields: ['access_token', 'app_secret'],
  verifyWebhook: (request, config) =>
    config.app_secret ? verifyMetaSignature(config.app_secret, request.rawBody, request.headers['x-hub-signature-256']) : true,
  parseWebhook: (request) => parseWhatsAppWebhook(request.rawBody),
  send: (config, message, context) => sendWhatsAppMessage(config, message, context.urls.metaGraph),
  register: (config, _input, context) =>
    checkGraphAccount('WhatsApp', `${graphUrl(context.urls.metaGraph, config.phone_number_id)}?fields=display_phone_number,verified_name`, config.access_token, ['display_phone_number', 'verified_name']),
};

export default whatsapp;
