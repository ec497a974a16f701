/**
 * Checks a channel's config against its connector's field specs (connectors/<type>/index.ts):
 * which fields are required, how each value is normalized, which are secrets, which name
 * servers. Client mistakes are 400 `{detail}` naming the fields, never 422: the body schema only
 * says `config` is an object; this module judges its contents.
 */
import { badRequest } from '../../errors.ts';
import { connectorFor, connectors } from '../../../connectors/index.ts';
import type { AnyConnector, ChannelConfig, ChannelRouting, ConfigRule } from '../../../connectors/types.ts';

export type { ChannelConfig } from '../../../connectors/types.ts';

export const MASK = '********';

/** Config keys naming a server the workers connect to, across every type: checked against internal addresses (lib/host-safety.ts). */
export const hostConfigFields: readonly string[] = [...new Set(connectors.flatMap((c) => c.config.filter((f) => f.host).map((f) => f.key)))];

/** Longest accepted config value (tokens are far shorter; this only stops junk). */
const MAX_VALUE_LENGTH = 4096;

/** Normalizes one value to a trimmed string, or returns a reason it is unacceptable. */
function checkValue(rule: ConfigRule, value: unknown): { value: string } | { problem: string } {
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
 * The config to store for a channel of `type`: known fields only (others are dropped), values
 * trimmed, ports as strings, then the connector's own defaults (e.g. a generated verify token).
 * An empty string counts as absent. 400 names missing required fields first, then invalid ones.
 */
export function normalizeChannelConfig(type: string, input: Record<string, unknown>): ChannelConfig {
  const connector = connectorFor(type);
  const required = new Set([...connector.config.filter((f) => f.required).map((f) => f.key), ...(connector.normalize?.alsoRequired?.(input) ?? [])]);
  // Fields are declared required first: missing ones are named in declaration order.
  const missing = connector.config.filter((f) => required.has(f.key) && isAbsent(input[f.key])).map((f) => f.key);
  if (missing.length > 0) throw badRequest(`Missing required config fields: ${missing.join(', ')}`);

  const config: ChannelConfig = {};
  const invalid: string[] = [];
  // Invalid ones are named optional fields first, as the messages always listed them.
  for (const field of [...connector.config.filter((f) => !f.required), ...connector.config.filter((f) => f.required)]) {
    if (isAbsent(input[field.key])) continue;
    const checked = checkValue(field.rule ?? 'text', input[field.key]);
    if ('problem' in checked) invalid.push(`${field.key} (${checked.problem})`);
    else config[field.key] = checked.value;
  }
  if (invalid.length > 0) throw badRequest(`Invalid config fields: ${invalid.join(', ')}`);
  return connector.normalize?.complete?.(config) ?? config;
}

/** The secret keys of a type's config. */
export const secretFieldsOf = (connector: AnyConnector): string[] => connector.config.filter((f) => f.secret).map((f) => f.key);

/** The same config with every secret value of its type replaced by "********" (what an `agent` sees). */
export function maskChannelConfig(type: string, config: Record<string, unknown>): Record<string, unknown> {
  const secrets = new Set(secretFieldsOf(connectorFor(type)));
  const masked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) masked[key] = secrets.has(key) ? MASK : value;
  return masked;
}

/**
 * The plain copies inbound routing needs (the connector's `routing`): `routingKey` names the
 * platform account, unique per type across all businesses (one channel per account, so an
 * account's messages reach one business); `verifyToken` answers Meta's GET verification.
 */
export function routingOf(type: string, config: ChannelConfig): ChannelRouting {
  return connectorFor(type).routing?.(config) ?? { routingKey: null, verifyToken: null };
}
