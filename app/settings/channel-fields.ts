/** What each channel type asks for, in the platform's words, and how to set it up there. */
import type { ChannelType } from '../types.ts';

export type FieldSpec = { key: string; label: string; secret?: boolean; optional?: boolean; placeholder?: string; type?: 'number' };
export type ChannelForm = { type: ChannelType; intro: string; fields: FieldSpec[] };

export const CHANNEL_FORMS: ChannelForm[] = [
  {
    type: 'telegram',
    intro: 'Create a bot with @BotFather in Telegram and paste its token. Parley sets the bot\'s webhook itself.',
    fields: [{ key: 'bot_token', label: 'Bot token', secret: true, placeholder: '123456:ABC-DEF…' }],
  },
  {
    type: 'whatsapp',
    intro: 'From your Meta app (WhatsApp → API setup): the phone number id and a permanent access token. After connecting, paste the callback URL and verify token shown here into the app\'s webhook settings and subscribe to "messages".',
    fields: [
      { key: 'phone_number_id', label: 'Phone number ID' },
      { key: 'access_token', label: 'Access token', secret: true },
      { key: 'app_secret', label: 'App secret', secret: true, optional: true },
      { key: 'verify_token', label: 'Verify token', optional: true, placeholder: 'Generated when empty' },
    ],
  },
  {
    type: 'instagram',
    intro: 'From your Meta app: the Instagram business account id and a page access token. After connecting, set the callback URL and verify token shown here in the app\'s webhook settings and subscribe to "messages".',
    fields: [
      { key: 'instagram_business_account_id', label: 'Instagram business account ID' },
      { key: 'access_token', label: 'Access token', secret: true },
      { key: 'app_secret', label: 'App secret', secret: true, optional: true },
      { key: 'verify_token', label: 'Verify token', optional: true, placeholder: 'Generated when empty' },
    ],
  },
  {
    type: 'email',
    intro: 'Replies go out through your SMTP server. Incoming mail is read over IMAP, or forwarded by your mail provider to the address shown after connecting.',
    fields: [
      { key: 'address', label: 'Support address', placeholder: 'support@acme.com' },
      { key: 'smtp_host', label: 'SMTP host' },
      { key: 'smtp_port', label: 'SMTP port', type: 'number', placeholder: '587' },
      { key: 'smtp_user', label: 'SMTP user' },
      { key: 'smtp_password', label: 'SMTP password', secret: true },
      { key: 'imap_host', label: 'IMAP host', optional: true },
      { key: 'imap_port', label: 'IMAP port', optional: true, type: 'number', placeholder: '993' },
      { key: 'imap_user', label: 'IMAP user', optional: true },
      { key: 'imap_password', label: 'IMAP password', secret: true, optional: true },
    ],
  },
  {
    type: 'sms',
    intro: 'From the Twilio console: your account SID, auth token and the number customers text. Parley points the number\'s messaging URL at itself.',
    fields: [
      { key: 'account_sid', label: 'Account SID' },
      { key: 'auth_token', label: 'Auth token', secret: true },
      { key: 'from_number', label: 'Phone number', placeholder: '+15551234567' },
    ],
  },
  {
    type: 'x',
    intro: 'From the X developer portal (an app with Account Activity API access): its keys and the account\'s access tokens.',
    fields: [
      { key: 'api_key', label: 'API key' },
      { key: 'api_secret', label: 'API secret', secret: true },
      { key: 'access_token', label: 'Access token', secret: true },
      { key: 'access_token_secret', label: 'Access token secret', secret: true },
      { key: 'bearer_token', label: 'Bearer token', secret: true },
    ],
  },
];
