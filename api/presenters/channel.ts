/** channels row → the spec's Channel: the full config for owner/admin, secrets masked for agents, none in public. */
import { z } from '../../lib/zod.ts';
import { maskChannelConfig } from '../../core/domain/channels/channel-config.ts';
import { tryReadChannelConfig, type ChannelRow } from '../../core/domain/channels/channel-row.ts';
import { webhookUrl } from '../../core/domain/channels/webhook-urls.ts';
import { channelTypes, connectorFor, connectors } from '../../connectors/index.ts';

/** The labels of the types with a property, for the generated descriptions: `` `a`, `b` and `c` ``. */
function typesWhere(has: (c: (typeof connectors)[number]) => boolean): string {
  const names = connectors.filter(has).map((c) => `\`${c.type}\``);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? 'none');
}

export const channelSchema = z
  .object({
    id: z.uuid(),
    business_id: z.uuid(),
    type: z.enum(channelTypes),
    config: z.record(z.string(), z.unknown()).openapi({
      description:
        'Fields by type (all strings). Owner and admin see the values; an agent sees secret values as `********`. ' +
        `Create and update responses of ${typesWhere((c) => c.setupFields !== undefined)} channels add \`_meta_setup_instructions\` {callback_url, verify_token}.`,
    }),
    is_active: z.boolean(),
    created_at: z.string(),
    default_team_id: z.uuid().nullable().openapi({
      description: 'Conversations opened on this channel start in this team (GET /api/v1/teams); null: none. Set with PATCH (owner or admin)',
    }),
    status: z.enum(['pending', 'connected', 'error']).openapi({ description: 'Registration with the platform: `pending` until the register job ran' }),
    last_error: z.string().nullable().openapi({ description: "The platform's reason when `status` is `error`" }),
    send_held_until: z
      .string()
      .nullable()
      .openapi({
        description:
          'Until when the platform asked Parley to stop sending on this channel (it answered a send with 429 and `Retry-After`): ' +
          "replies on all of the channel's conversations stay `queued` until then, other channels are not held. Null: not held.",
      }),
    is_builtin: z.boolean().openapi({ description: "The business's built-in webchat channel: not counted against the plan, cannot be deleted" }),
    webhook_url: z
      .string()
      .nullable()
      .openapi({
        description:
          "Where the platform posts to Parley, for the setup steps a dashboard shows: the Meta app's callback URL (`whatsapp`, `instagram`, with `verify_token`), " +
          "the Twilio number's messaging URL (`sms`), the X or Telegram webhook Parley registers. " +
          `Null for ${typesWhere((c) => c.webhook?.audience !== 'platform')} (see \`inbound_webhook\`).`,
      }),
    inbound_webhook: z
      .object({ url: z.string(), secret: z.string() })
      .nullable()
      .openapi({
        description: `${typesWhere((c) => c.webhook?.audience === 'owner')} channels, owner and admin only, once registered: where a mail provider forwards raw MIME messages, and the secret it sends in \`X-Parley-Webhook-Secret\` (or \`?secret=\`). Null otherwise.`,
      }),
    warnings: z.array(z.string()).openapi({
      description:
        `What makes this channel insecure, for its owner to fix. A ${typesWhere((c) => c.webhook?.unsigned !== undefined).replace(' and ', ' or ')} channel without \`app_secret\` cannot have ` +
        "Meta's webhook signature checked, so anyone who knows its phone number id or account id could post messages as customers: " +
        'such posts are refused when the server runs with META_REQUIRE_SIGNATURE (the production default). Empty when nothing is wrong.',
    }),
  })
  .openapi('Channel');
export type ChannelOutput = z.infer<typeof channelSchema>;

export const publicChannelSchema = z
  .object({
    id: z.uuid(),
    business_id: z.uuid(),
    type: z.enum(channelTypes),
    config: z.object({}).openapi({ description: 'Always empty: public reads never show configuration' }),
    is_active: z.boolean(),
    created_at: z.string(),
  })
  .openapi('PublicChannel');

export type PresentChannelOptions = {
  /** An `agent` is reading: secret values become "********". */
  masked: boolean;
  /** PUBLIC_URL: set on create/update responses to add the connector's setup fields (Meta's `_meta_setup_instructions`). */
  setupFor?: string;
  /** PUBLIC_URL, for `webhook_url` and the `inbound_webhook` of e-mail channels. */
  publicUrl: string;
};

/** A webhook the owner configures (e-mail forwarding): its URL and the per-channel secret registration generated. */
function inboundWebhook(row: ChannelRow, options: PresentChannelOptions): { url: string; secret: string } | null {
  const secret = row.state.webhook_secret;
  const url = webhookUrl(options.publicUrl, row.type, row.id);
  if (connectorFor(row.type).webhook?.audience !== 'owner' || options.masked || typeof secret !== 'string' || !url) return null;
  return { url, secret };
}

/** The URL the platform posts to, for the setup steps a dashboard shows. */
const platformWebhookUrl = (row: ChannelRow, publicUrl: string) =>
  connectorFor(row.type).webhook?.audience === 'platform' ? webhookUrl(publicUrl, row.type, row.id) : null;

function warningsOf(row: ChannelRow, stored: Record<string, string> | null): string[] {
  const unsigned = connectorFor(row.type).webhook?.unsigned;
  return stored && unsigned?.is(stored) ? [unsigned.warning] : [];
}

const UNREADABLE = 'The stored configuration cannot be decrypted (was CONFIG_ENCRYPTION_KEY changed?). Enter the credentials again.';

export function presentChannel(row: ChannelRow, key: Uint8Array, options: PresentChannelOptions): ChannelOutput {
  const stored = tryReadChannelConfig(key, row);
  let config: Record<string, unknown> = stored ?? {};
  const setupFields = connectorFor(row.type).setupFields;
  const setupUrl = options.setupFor ? webhookUrl(options.setupFor, row.type, row.id) : null;
  if (setupFields && stored && setupUrl) config = { ...config, ...setupFields(stored, setupUrl) };
  return {
    id: row.id,
    business_id: row.business_id,
    type: row.type,
    config: options.masked ? maskChannelConfig(row.type, config) : config,
    is_active: row.is_active,
    created_at: row.created_at,
    default_team_id: row.default_team_id,
    status: stored ? row.status : 'error',
    last_error: stored ? row.last_error : UNREADABLE,
    send_held_until: row.send_held_until !== null && Date.parse(row.send_held_until) > Date.now() ? row.send_held_until : null,
    is_builtin: row.is_builtin,
    webhook_url: platformWebhookUrl(row, options.publicUrl),
    inbound_webhook: inboundWebhook(row, options),
    warnings: warningsOf(row, stored),
  };
}

export const presentPublicChannel = (row: ChannelRow): z.infer<typeof publicChannelSchema> => ({
  id: row.id,
  business_id: row.business_id,
  type: row.type,
  config: {},
  is_active: row.is_active,
  created_at: row.created_at,
});
