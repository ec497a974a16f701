/**
 * WhatsApp Cloud API connector (plain fetch against Graph; Meta ships no Node SDK worth the
 * weight). One webhook URL serves every WhatsApp channel: the route finds the channel by the
 * event's routingKey (`metadata.phone_number_id`), then checks the signature with its app secret.
 */
import { ConnectorError, type WebhookConnector } from '../types.ts';
import { assertPlatformUrl, downloadMedia } from '../media.ts';
import {
  checkGraphAccount,
  completeMetaConfig,
  describeGraphError,
  graphErrorOf,
  graphGet,
  graphUrl,
  metaAfterConnect,
  metaSetupFields,
  metaWebhook,
  metaWebhookFields,
} from '../meta.ts';
import { parseWhatsAppWebhook } from './parse.ts';
import { sendWhatsAppMessage } from './send.ts';

export { verifyMetaSubscription, metaSignature } from '../meta.ts';
export { parseWhatsAppWebhook } from './parse.ts';

export type WhatsAppConfig = { phone_number_id: string; access_token: string; verify_token?: string; app_secret?: string; business_account_id?: string };

/** Where Meta serves media (lookaside.fbsbx.com and its CDNs). */
export const META_MEDIA_HOSTS = ['fbsbx.com', 'fbcdn.net', 'facebook.com', 'whatsapp.net', 'cdninstagram.com'] as const;

const whatsapp: WebhookConnector<WhatsAppConfig> = {
  type: 'whatsapp',
  label: 'WhatsApp',
  icon: { color: '#16A34A', path: 'M12 3a9 9 0 0 0-7.8 13.5L3 21l4.6-1.2A9 9 0 1 0 12 3z M9 8c0 4 3 7 7 7' },
  titleField: 'phone_number_id',
  config: [
    { key: 'phone_number_id', required: true, label: 'Phone number ID' },
    { key: 'access_token', required: true, secret: true, label: 'Access token' },
    { key: 'business_account_id', required: false, label: 'WhatsApp Business Account ID (for templates)' },
    ...metaWebhookFields,
  ],
  normalize: { complete: completeMetaConfig },
  routing: (config) => ({ routingKey: config.phone_number_id, verifyToken: config.verify_token }),
  duplicateAccountMessage: 'This WhatsApp phone number is already connected to a channel',
  webhook: metaWebhook('WhatsApp', (request) => parseWhatsAppWebhook(request.rawBody)),
  setupFields: metaSetupFields,
  setup: {
    intro:
      'From your Meta app (WhatsApp → API setup): the phone number id and a permanent access token. After connecting, paste the callback URL and verify token shown here into the app\'s webhook settings and subscribe to "messages".',
    steps: [
      'In your Meta app, open WhatsApp → API setup and copy the phone number id.',
      'Create a permanent access token (a system user token with the whatsapp_business_messaging permission).',
      'Copy the app secret (App settings → Basic), so Parley can check that webhooks come from Meta.',
      'After connecting, paste the callback URL and verify token shown here into the app\'s webhook settings and subscribe to "messages".',
    ],
    afterConnect: metaAfterConnect,
  },
  baseUrl: { env: 'META_GRAPH_URL', default: 'https://graph.facebook.com/v23.0', description: 'Meta Graph API base URL (WhatsApp)' },
  send: (config, message, context) => sendWhatsAppMessage(config, message, context.baseUrl),
  // Media by id: Graph answers a short-lived URL (on Meta's CDN), read with the same bearer token.
  fetchMedia: async (config, attachment, context) => {
    if (!attachment.platform_file_id) throw new ConnectorError('permanent', 'WhatsApp sent no media id');
    const info = (await graphGet('WhatsApp', graphUrl(context.baseUrl, attachment.platform_file_id), config.access_token)) as {
      url?: unknown;
      mime_type?: unknown;
    };
    if (typeof info?.url !== 'string') throw new ConnectorError('transient', 'WhatsApp answered without a media URL');
    const url = assertPlatformUrl('WhatsApp', info.url, META_MEDIA_HOSTS, context.baseUrl);
    const download = await downloadMedia('WhatsApp', url.toString(), { authorization: `Bearer ${config.access_token}` }, (body) => {
      const error = graphErrorOf(body);
      return error ? describeGraphError(error) : undefined;
    });
    return { ...download, contentType: download.contentType ?? (typeof info.mime_type === 'string' ? info.mime_type : undefined) };
  },
  register: (config, _input, context) =>
    checkGraphAccount('WhatsApp', `${graphUrl(context.baseUrl, config.phone_number_id)}?fields=display_phone_number,verified_name`, config.access_token, [
      'display_phone_number',
      'verified_name',
    ]),
};

export default whatsapp;
