/**
 * WhatsApp Cloud API connector (plain fetch against Graph; Meta ships no Node SDK worth the
 * weight). One webhook URL serves every WhatsApp channel: the route finds the channel by the
 * event's routingKey (`metadata.phone_number_id`), then checks the signature with its app secret.
 */
import { z } from 'zod';
import type { Connector } from '../types.ts';
import { checkGraphAccount, graphUrl, metaWebhookConfig, verifyMetaWebhook } from '../meta.ts';
import { parseWhatsAppWebhook } from './parse.ts';
import { sendWhatsAppMessage } from './send.ts';

export { verifyMetaSubscription, metaSignature } from '../meta.ts';
export { parseWhatsAppWebhook } from './parse.ts';

const requiredString = z.string().trim().min(1);

export const whatsappConfigSchema = z.object({
  phone_number_id: requiredString,
  access_token: requiredString,
  ...metaWebhookConfig,
});

export type WhatsAppConfig = z.infer<typeof whatsappConfigSchema>;

const whatsapp: Connector<WhatsAppConfig> = {
  type: 'whatsapp',
  configSchema: whatsappConfigSchema,
  secretFields: ['access_token', 'app_secret'],
  verifyWebhook: (request, config) => verifyMetaWebhook(request, config.app_secret),
  parseWebhook: (request) => parseWhatsAppWebhook(request.rawBody),
  send: (config, message, context) => sendWhatsAppMessage(config, message, context.urls.metaGraph),
  register: (config, _input, context) =>
    checkGraphAccount('WhatsApp', `${graphUrl(context.urls.metaGraph, config.phone_number_id)}?fields=display_phone_number,verified_name`, config.access_token, ['display_phone_number', 'verified_name']),
};

export default whatsapp;
