/**
 * Instagram messaging connector (Instagram API with Instagram Login, plain fetch against Graph).
 * One webhook URL serves every Instagram channel: the route finds the channel by the event's
 * routingKey (the receiving account's id), then checks the signature with its app secret.
 */
import { z } from 'zod';
import type { Connector } from '../types.ts';
import { checkGraphAccount, graphUrl, metaWebhookConfig, verifyMetaWebhook } from '../meta.ts';
import { parseInstagramWebhook } from './parse.ts';
import { sendInstagramMessage } from './send.ts';

export { verifyMetaSubscription, metaSignature } from '../meta.ts';
export { parseInstagramWebhook } from './parse.ts';

const requiredString = z.string().trim().min(1);

export const instagramConfigSchema = z.object({
  access_token: requiredString,
  instagram_business_account_id: requiredString,
  ...metaWebhookConfig,
});

export type InstagramConfig = z.infer<typeof instagramConfigSchema>;

const instagram: Connector<InstagramConfig> = {
  type: 'instagram',
  configSchema: instagramConfigSchema,
  secretFields: ['access_token', 'app_secret'],
  verifyWebhook: (request, config) => verifyMetaWebhook(request, config.app_secret),
  parseWebhook: (request) => parseInstagramWebhook(request.rawBody),
  send: (config, message, context) => sendInstagramMessage(config, message, context.urls.instagramGraph),
  register: (config, _input, context) =>
    checkGraphAccount('Instagram', `${graphUrl(context.urls.instagramGraph, config.instagram_business_account_id)}?fields=username`, config.access_token, ['username']),
};

export default instagram;
