/** The business's channels: list (any member), create, update, delete (owner or admin). */
import { assertConfigHostsAllowed, createChannel, deleteChannel, listChannels, reconnectChannel, updateChannel } from '../../../core/commands/channels.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { actorOf, recordAudit } from '../../../core/domain/platform/audit.ts';
import { z } from '../../../lib/zod.ts';
import { defineRoute } from '../../route.ts';
import { channelSchema, presentChannel } from '../../presenters/channel.ts';
import templateRoutes from './templates.ts';
import { channelIdParams, createChannelBody, messageResponse, updateChannelBody } from './schema.ts';

const tags = ['Channels'];

export const list = defineRoute({
  method: 'get',
  path: '/api/v1/channels',
  summary: "The business's channels, active and inactive",
  description:
    'Also answers at `/api/v1/channels/`. Any member may read. The built-in `webchat` channel comes first, then the others oldest first. ' +
    'Owner and admin see config values; an `agent` sees secret values (tokens, secrets, passwords, `verify_token`) as `********`. ' +
    'A caller without a business: 400 `Organization not found`. See docs/decisions.md#channels-and-their-configuration.',
  tags,
  auth: 'user',
  policy: 'channels.read',
  response: z.array(channelSchema),
  errors: [400],
  handler: async ({ member, deps }) => {
    const rows = await listChannels(deps.db, member.businessId);
    return rows.map((row) => presentChannel(row, deps.config.encryptionKey, { masked: member.role === 'agent', publicUrl: deps.config.publicUrl }));
  },
});

export const create = defineRoute({
  method: 'post',
  path: '/api/v1/channels',
  summary: 'Connect a channel (owner or admin)',
  description:
    'Also answers at `/api/v1/channels/`. Checks in order: role (403), type (400 `Invalid channel type`), plan (402: Free allows only `widget`, ' +
    'counts exclude the built-in webchat), config (400 naming missing or invalid fields), a `widget_id` of the business (400), ' +
    'an account not already held (400: a WhatsApp number, Instagram account, Telegram bot, SMS number or widget has one channel across all businesses ' +
    "once that channel's registration proved the platform accepts its credentials for the account; until then naming an account claims nothing, and " +
    'when a channel proves it, the unproven channels of it elsewhere end in `status: error` saying why; an X account is known only at registration). ' +
    'The config is stored encrypted. Platform channels start `pending` and a `register_channel` job registers them with the platform ' +
    '(creation never waits for it); `webchat` and `widget` channels start `connected`. `whatsapp` and `instagram` get a generated ' +
    '`verify_token` when none is given, and the response config carries `_meta_setup_instructions`. ' +
    'Server hosts (`smtp_host`, `imap_host`) are checked first: one that is or resolves to a loopback, private, link-local or unspecified address is 400 naming the field ' +
    '(loopback and private networks are allowed when the server runs with ALLOW_PRIVATE_HOSTS=true; link-local and unspecified never are). ' +
    'Every connection resolves the host again and connects only to the checked address; a refused or unresolvable host shows as `status: error` with the reason. See docs/decisions.md#channels-and-their-configuration.',
  tags,
  auth: 'user',
  policy: 'channels.manage',
  body: createChannelBody,
  response: channelSchema,
  errors: [400, 402, 403],
  handler: async ({ body, caller, member, deps }) => {
    await assertConfigHostsAllowed(body.config, { allowPrivate: deps.config.ALLOW_PRIVATE_HOSTS });
    const { channel } = await runCommand(deps, async (tx) => {
      const made = await createChannel(tx, deps.config.encryptionKey, {
        businessId: member.businessId,
        type: body.type,
        config: body.config,
        isActive: body.is_active,
      });
      await recordAudit(tx, {
        businessId: member.businessId,
        actor: actorOf(caller),
        action: 'channel.created',
        targetType: 'channel',
        targetId: made.channel.id,
        details: { type: made.channel.type },
      });
      return made;
    });
    return presentChannel(channel, deps.config.encryptionKey, { masked: false, setupFor: deps.config.publicUrl, publicUrl: deps.config.publicUrl });
  },
});

export const update = defineRoute({
  method: 'patch',
  path: '/api/v1/channels/:channel_id',
  summary: 'Change a channel (owner or admin)',
  description:
    'Same rules as create. `config` is merged into the stored config (given keys replace, `null` removes a key); with a new `type` ' +
    "it starts empty and must hold that type's required fields. A changed config or type sets `pending` and enqueues " +
    '`register_channel` again (so does re-activating a platform channel). Server hosts are checked as on create. The built-in webchat channel cannot change type or be ' +
    "deactivated (400). Another business's channel: 404. WhatsApp, Instagram and X webhooks see the change at once on this API node " +
    'and within 5 seconds on others (their channel lookups are cached that long). `default_team_id`: conversations opened on the channel from then on start in that team (docs/decisions.md#teams-and-team-scoped-visibility). See docs/decisions.md#channels-and-their-configuration.',
  tags,
  auth: 'user',
  policy: 'channels.manage',
  params: channelIdParams,
  body: updateChannelBody,
  response: channelSchema,
  errors: [400, 402, 403, 404],
  handler: async ({ params, body, caller, member, deps }) => {
    await assertConfigHostsAllowed(body.config, { allowPrivate: deps.config.ALLOW_PRIVATE_HOSTS });
    const { channel } = await runCommand(deps, async (tx) => {
      const changed = await updateChannel(tx, deps.config.encryptionKey, member.businessId, params.channel_id, {
        type: body.type,
        config: body.config,
        isActive: body.is_active,
        defaultTeamId: body.default_team_id,
      });
      // The names of what changed, never the values: a config holds credentials.
      const details = {
        type: changed.channel.type,
        ...(body.type !== undefined ? { type_changed: true } : {}),
        ...(body.config ? { config_keys: Object.keys(body.config).sort() } : {}),
        ...(body.is_active !== undefined ? { is_active: body.is_active } : {}),
        ...(body.default_team_id !== undefined ? { default_team_id: body.default_team_id } : {}),
      };
      await recordAudit(tx, {
        businessId: member.businessId,
        actor: actorOf(caller),
        action: 'channel.updated',
        targetType: 'channel',
        targetId: params.channel_id,
        details,
      });
      return changed;
    });
    return presentChannel(channel, deps.config.encryptionKey, { masked: false, setupFor: deps.config.publicUrl, publicUrl: deps.config.publicUrl });
  },
});

export const reconnect = defineRoute({
  method: 'post',
  path: '/api/v1/channels/:channel_id/reconnect',
  summary: 'Register a channel with its platform again (owner or admin)',
  description:
    "For a platform channel in `error` once the cause is fixed on the platform's side (a restored token, an unblocked bot): " +
    'sets `pending`, clears `last_error` and enqueues `register_channel`, without sending the credentials again; `channel_updated` follows. ' +
    "`webchat` and `widget` channels have no platform (400); an inactive channel is reactivated with PATCH `is_active` (400). Another business's channel: 404. See docs/decisions.md#channels-and-their-configuration.",
  tags,
  auth: 'user',
  policy: 'channels.manage',
  params: channelIdParams,
  response: channelSchema,
  errors: [400, 403, 404],
  handler: async ({ params, member, deps }) => {
    const { channel } = await runCommand(deps, (tx) => reconnectChannel(tx, member.businessId, params.channel_id));
    return presentChannel(channel, deps.config.encryptionKey, { masked: false, publicUrl: deps.config.publicUrl });
  },
});

export const remove = defineRoute({
  method: 'delete',
  path: '/api/v1/channels/:channel_id',
  summary: 'Delete a channel (owner or admin)',
  description:
    'Permanent. Its conversations and customers stay, with no channel. The built-in webchat channel cannot be deleted (400). ' +
    "A widget's channel may be deleted; the widget stays and a new `widget` channel can be created for it. See docs/decisions.md#channels-and-their-configuration.",
  tags,
  auth: 'user',
  policy: 'channels.manage',
  params: channelIdParams,
  response: messageResponse,
  errors: [400, 403, 404],
  handler: async ({ params, caller, member, deps }) => {
    await runCommand(deps, async (tx) => {
      const deleted = await deleteChannel(tx, member.businessId, params.channel_id);
      await recordAudit(tx, {
        businessId: member.businessId,
        actor: actorOf(caller),
        action: 'channel.deleted',
        targetType: 'channel',
        targetId: params.channel_id,
      });
      return deleted;
    });
    return { message: 'Channel deleted' };
  },
});

export default [list, create, update, reconnect, remove, ...templateRoutes];
