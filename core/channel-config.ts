/**
 * What each channel type's config must hold (decisions.md "Required config by type"), which
 * of its values are secrets, and which values inbound routing needs in plain columns.
 * Client mistakes are 400 `{detail}` naming the fields, never 422: the body schema only
 * says `config` is an object; this module judges its contents.
 */
import { randomBytes } from 'node:crypto';
import { badRequest } from './errors.ts';

export const channelTypes = ['webchat', 'widget', 'email', 'whatsapp', 'telegram', 'instagram', 'x', 'sms'] as const;
export type ChannelType = (typeof channelTypes)[number];

/** A stored channel config: every value a string (the spec says "all values strings"). */
export type ChannelConfig = Record<string, string>;

export const isChannelType = (value: string): value is ChannelType => (channelTypes as readonly string[]).includes(value);

/** Types Parley serves itself: no platform to register with, connected from the start. */
export const isInternalChannelType = (type: ChannelType): boolean => type === 'webchat' || type === 'widget';

type FieldRule = 'text' | 'port' | 'email' | 'twilio_sid';

type TypeSpec = {
  required: Record<string, FieldRule>;
  optional: Record<string, FieldRule>;
};

const specs: Record<ChannelType, TypeSpec> = {
  telegram: { required: { bot_token: 'text' }, optional: {} },
  whatsapp: { required: { phone_number_id: 'text', access_token: 'text' }, optional: { verify_token: 'text', app_secret: 'text' } },
  instagram: { required: { access_token: 'text', instagram_business_account_id: 'text' }, optional: { verify_token: 'text', app_secret: 'text' } },
  x: {
    required: { api_key: 'text', api_secret: 'text', access_token: 'text', access_token_secret: 'text', bearer_token: 'text' },
    optional: {},
  },
  sms: { required: { account_sid: 'twilio_sid', auth_token: 'text', from_number: 'text' }, optional: {} },
  email: {
    required: { address: 'email', smtp_host: 'text', smtp_port: 'port', smtp_user: 'text', smtp_password: 'text' },
    optional: { imap_host: 'text', imap_port: 'port', imap_user: 'text', imap_password: 'text' },
  },
  widget: { required: { widget_id: 'text' }, optional: {} },
  webchat: { required: {}, optional: { name: 'text' } },
};

/** Config keys whose values are credentials: shown as "********" to agents. */
export const secretConfigFields: ReadonlySet<string> = new Set([
  'bot_token',
  'access_token',
  'app_secret',
  'api_key',
  'api_secret',
  'access_token_secret',
  'bearer_token',
  'auth_token',
  'smtp_password',
  'imap_password',
  // Anyone holding it can answer Meta's webhook verification for this channel.
  'verify_token',
]);

export const MASK = '********';

/** Config keys naming a server the workers connect to: checked against internal addresses (core/host-safety.ts). */
export const hostConfigFields: readonly string[] = ['smtp_host', 'imap_host'];

/** Longest accepted config value (tokens are far shorter; this only stops junk). */
const MAX_VALUE_LENGTH = 4096;

/** Normalizes one value to a trimmed string, or returns a reason it is unacceptable. */
function checkValue(rule: FieldRule, value: unknown): { value: string } | { problem: string } {
  let text: string;
  if (typeof value === 'string') text = value.trim();
  else if (rule === 'port' && typeof value === 'number') text = String(value);
  else return { problem: 'must be a string' };
  if (text.length > MAX_VALUE_LENGTH) return { problem: `must be at most ${MAX_VALUE_LENGTH} characters` };
  switch (rule) {
    case 'port': {
      const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
      return port >= 1 && port <= 65535 ? { value: String(port) } : { problem: 'must be a port number (1-65535)' };
    }
    case 'email':
      return /^[^\s@]+@[^\s@]+$/.test(text) ? { value: text.toLowerCase() } : { problem: 'must be an e-mail address' };
    case 'twilio_sid':
      return /^AC[0-9a-zA-Z]+$/.test(text) ? { value: text } : { problem: 'must be a Twilio account SID (starts with AC)' };
    default:
      return { value: text };
  }
}

const isAbsent = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/**
 * The config to store for `type`: known fields only (others are dropped), values trimmed,
 * ports as strings, a verify_token generated for whatsapp/instagram when absent. An empty
 * string counts as absent. 400 names missing required fields first, then invalid ones.
 */
export function normalizeChannelConfig(type: ChannelType, input: Record<string, unknown>): ChannelConfig {
  const spec = specs[type];
  const required = { ...spec.required };
  // IMAP is optional, but once any IMAP field is given the mailbox must be reachable.
  if (type === 'email' && Object.keys(spec.optional).some((k) => !isAbsent(input[k]))) {
    Object.assign(required, { imap_host: 'text', imap_user: 'text', imap_password: 'text' });
  }
  const missing = Object.keys(required).filter((k) => isAbsent(input[k]));
  if (missing.length > 0) throw badRequest(`Missing required config fields: ${missing.join(', ')}`);

  const config: ChannelConfig = {};
  const invalid: string[] = [];
  for (const [field, rule] of Object.entries({ ...spec.optional, ...required })) {
    if (isAbsent(input[field])) continue;
    const checked = checkValue(rule, input[field]);
    if ('problem' in checked) invalid.push(`${field} (${checked.problem})`);
    else config[field] = checked.value;
  }
  if (invalid.length > 0) throw badRequest(`Invalid config fields: ${invalid.join(', ')}`);

  if (type === 'email' && config.imap_host && !config.imap_port) config.imap_port = '993';
  if ((type === 'whatsapp' || type === 'instagram') && !config.verify_token) config.verify_token = generateVerifyToken();
  return config;
}

/** A random, URL-safe token for Meta's webhook verification handshake. */
export const generateVerifyToken = () => randomBytes(24).toString('base64url');

/** The same config with every secret value replaced by "********" (what an `agent` sees). */
export function maskChannelConfig(config: Record<string, unknown>): Record<string, unknown> {
  const masked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) masked[key] = secretConfigFields.has(key) ? MASK : value;
  return masked;
}

/**
 * The plain copies inbound routing needs: `routingKey` names the platform account, unique per
 * type across all businesses (one channel per account, so an account's messages reach one
 * business): a shared webhook endpoint routes by it (WhatsApp phone_number_id, Instagram
 * account id, the widget id); for Telegram (the bot id, the digits before `:` in its token)
 * and SMS (the number) it only keeps a second channel from taking the bot's webhook or the
 * number's URL from the first. `verifyToken` answers Meta's GET verification. X learns its
 * user id at registration.
 */
export function routingOf(type: ChannelType, config: ChannelConfig): { routingKey: string | null; verifyToken: string | null } {
  switch (type) {
    case 'whatsapp':
      return { routingKey: config.phone_number_id, verifyToken: config.verify_token };
    case 'instagram':
      return { routingKey: config.instagram_business_account_id, verifyToken: config.verify_token };
    case 'widget':
      return { routingKey: config.widget_id, verifyToken: null };
    case 'telegram':
      return { routingKey: /^(\d+):/.exec(config.bot_token)?.[1] ?? null, verifyToken: null };
    case 'sms':
      return { routingKey: config.from_number.replace(/[\s().-]/g, ''), verifyToken: null };
    default:
      return { routingKey: null, verifyToken: null };
  }
}
