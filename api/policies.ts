/**
 * Who may do what: ONE table of actions → roles. A route names its action (`policy:` in
 * defineRoute); the router authorizes the caller against this table before the handler runs and
 * hands it the caller's membership; the OpenAPI description of the operation says who may call;
 * `GET /api/v1/auth/me` sends the same table, resolved for the caller, as `can`, which the agent
 * app uses instead of role logic of its own. A new action is a new line here.
 *
 * Each action also says what a caller without a business gets, because the contract answers
 * that differently by area (see docs/decisions.md#businesses-plans-and-limits).
 *
 * API keys (docs/decisions.md#api-keys): a key acts as the member who made it, and an action
 * also needs the key's scope for it. An action's scope is its `scope` when the line gives one
 * (`null`: never through a key), else: `read` for actions ending in `.read`, `write` for actions
 * every member may do, `admin` for actions kept to owners or admins.
 */
import { badRequest, forbidden, notFound, type HttpError } from '../core/errors.ts';
import type { Caller, Role, Scope } from './caller.ts';

export type Member = NonNullable<Caller['member']>;

const everyone: readonly Role[] = ['owner', 'admin', 'agent'];
/** The owner and admins: the business's settings, channels and assignments by user id. */
const managers: readonly Role[] = ['owner', 'admin'];
/** The owner alone: plan, widgets, who is on the team. */
const ownerOnly: readonly Role[] = ['owner'];

/** What a caller without a business gets, by area. */
export const noBusiness = {
  /** 400 `Organization not found`: channels, widgets, knowledge base, AI, analytics, billing. */
  organization: (): HttpError => badRequest('Organization not found'),
  /** 404 `Business not found`: business, plan, customers, conversations. */
  business: (): HttpError => notFound('Business not found'),
  /** 400 `User is not in a business`: team. */
  team: (): HttpError => badRequest('User is not in a business'),
  /** 404 `Article not found`: deleting an article (there is no article of theirs to find). */
  article: (): HttpError => notFound('Article not found'),
};

/** What an API key may be allowed: reading, changing what any member may change, managing the business. */
export type { Scope } from './caller.ts';
export const scopes: readonly Scope[] = ['read', 'write', 'admin'];

type Rule = {
  roles: readonly Role[];
  /** The API key scope the action needs (default: see the header); `null`: API keys may not do it. */
  scope?: Scope | null;
  /** The 403 `detail` for a member whose role is not in `roles` (omitted when every role may). */
  refusal?: string;
  /** The error for a caller without a business. */
  noBusiness: () => HttpError;
  /**
   * Allowed to a member whose business requires two-factor sign-in before they have turned it
   * on (every other action answers 403 TWO_FACTOR_SETUP_REQUIRED until they do).
   */
  beforeTwoFactor?: true;
};

/** The 403 `detail` for a member who must set up two-factor sign-in first (the app matches on it). */
export const TWO_FACTOR_SETUP_REQUIRED = 'Your business requires two-factor authentication: set it up under Settings → Your account first';

export const policies = {
  'business.read': { roles: everyone, noBusiness: noBusiness.business },
  'business.update': { roles: managers, refusal: 'Only the owner or an admin can change the business', noBusiness: noBusiness.business },
  'plan.read': { roles: everyone, noBusiness: noBusiness.business },
  'billing.checkout': { roles: ownerOnly, refusal: 'Only the business owner can change the plan', noBusiness: noBusiness.organization },

  'channels.read': { roles: everyone, noBusiness: noBusiness.organization },
  'channels.manage': { roles: managers, refusal: 'Only the owner or an admin can manage channels', noBusiness: noBusiness.organization },
  'widgets.read': { roles: everyone, noBusiness: noBusiness.organization },
  'widgets.manage': { roles: ownerOnly, refusal: 'Only the business owner can manage widgets', noBusiness: noBusiness.organization },

  'team.read': { roles: everyone, noBusiness: noBusiness.team },
  /** A key has no presence of its own. */
  'team.set_own_status': { roles: everyone, scope: null, noBusiness: noBusiness.team },
  /** One's own e-mail signature (a key acts as its member, so it may set theirs). */
  'team.set_own_signature': { roles: everyone, noBusiness: noBusiness.team },
  'team.invite': { roles: ownerOnly, refusal: 'Only the business owner can invite team members', noBusiness: noBusiness.team },
  'team.remove': { roles: ownerOnly, refusal: 'Only the business owner can remove team members', noBusiness: noBusiness.team },
  /** Leaving on one's own: every member but the owner, whose business it is. */
  'team.leave': {
    roles: ['admin', 'agent'],
    scope: null,
    refusal: 'The business owner cannot leave their own business',
    noBusiness: noBusiness.team,
    beforeTwoFactor: true,
  },
  'handoffs.read': { roles: everyone, noBusiness: noBusiness.team },

  'conversations.read': { roles: everyone, noBusiness: noBusiness.business },
  'conversations.create': { roles: everyone, noBusiness: noBusiness.business },
  /** Replies and private notes (POST …/messages, with or without `private`) alike. */
  'conversations.reply': { roles: everyone, noBusiness: noBusiness.business },
  /** Forwarding an e-mail conversation (or some of its messages) to an outside address. */
  'conversations.forward': { roles: everyone, noBusiness: noBusiness.business },
  /** GET /mentions: the caller's own mentions only, whatever the role. */
  'mentions.read': { roles: everyone, noBusiness: noBusiness.business },
  'mentions.mark_read': { roles: everyone, noBusiness: noBusiness.business },
  'conversations.change_status': { roles: everyone, noBusiness: noBusiness.business },
  /**
   * Assignment is one rule on both routes: any member may take a conversation (assign it to
   * themselves: PUT …/assign/{their own agent_number}, the app's "Assign to me"); assigning it to
   * someone else takes the owner or an admin (PUT with another member's number, or POST
   * /team/assign, which the contract keeps to the owner and admins altogether).
   */
  /** Merging two conversations of one customer: part of working the inbox, like resolving. */
  'conversations.merge': { roles: everyone, noBusiness: noBusiness.business },
  'conversations.take': { roles: everyone, noBusiness: noBusiness.business },
  'conversations.assign': { roles: managers, refusal: 'Only the owner or an admin can assign conversations to others', noBusiness: noBusiness.team },
  /** PUT/DELETE …/snooze: any member sets a conversation aside and wakes it (docs/decisions.md#snooze-priority-bulk-and-scheduled-send). */
  'conversations.snooze': { roles: everyone, noBusiness: noBusiness.business },
  /** PUT …/priority: any member marks how urgent a conversation is. */
  'conversations.set_priority': { roles: everyone, noBusiness: noBusiness.business },
  /**
   * POST /conversations/bulk: any member may call it; each action is then authorized by the line
   * of its single-conversation route (take/assign, change_status, label, snooze, set_priority).
   */
  'conversations.bulk': { roles: everyone, noBusiness: noBusiness.business },
  /** PUT …/labels: any member tags a conversation with the business's labels (as in Chatwoot). */
  'conversations.label': { roles: everyone, noBusiness: noBusiness.business },
  /** The label set is the business's vocabulary: owners and admins shape it (Chatwoot: administrators), everyone reads it. */
  'labels.read': { roles: everyone, noBusiness: noBusiness.business },
  'labels.manage': { roles: managers, refusal: 'Only the owner or an admin can manage labels', noBusiness: noBusiness.business },
  /** Teams (groups of members): every member sees them and who is in which; the owner and admins shape them (Chatwoot: administrators). */
  'teams.read': { roles: everyone, noBusiness: noBusiness.business },
  'teams.manage': { roles: managers, refusal: 'Only the owner or an admin can manage teams', noBusiness: noBusiness.business },
  /** PUT …/team: any member routes a conversation to a team (under team-scoped visibility an agent may hand it to a team they cannot see). */
  'conversations.set_team': { roles: everyone, noBusiness: noBusiness.business },
  /** Saved replies are the team's own: any member lists, renders, adds, edits and deletes them (Chatwoot lets agents manage them too). */
  'canned_responses.read': { roles: everyone, noBusiness: noBusiness.business },
  'canned_responses.manage': { roles: everyone, noBusiness: noBusiness.business },
  'customers.read': { roles: everyone, noBusiness: noBusiness.business },
  /** Customer records are the team's work: any member edits them and merges duplicates (Chatwoot: agents too); every merge is in the audit log. */
  'customers.update': { roles: everyone, noBusiness: noBusiness.business },
  'customers.merge': { roles: everyone, noBusiness: noBusiness.business },
  /** A customer's whole history in one file, and its erasure: data-protection requests, for the owner and admins. */
  'customers.export': { roles: managers, refusal: "Only the owner or an admin can export a customer's data", noBusiness: noBusiness.business },
  'customers.erase': { roles: managers, refusal: 'Only the owner or an admin can erase a customer', noBusiness: noBusiness.business },
  /** Typed attribute definitions: the business's customer fields, shaped by the owner and admins; every member reads them to edit customers. */
  'customer_attributes.read': { roles: everyone, noBusiness: noBusiness.business },
  'customer_attributes.manage': {
    roles: managers,
    refusal: 'Only the owner or an admin can change the customer attributes',
    noBusiness: noBusiness.business,
  },
  /** Notes on a customer: any member reads and writes them, and deletes their own… */
  'customer_notes.read': { roles: everyone, noBusiness: noBusiness.business },
  'customer_notes.write': { roles: everyone, noBusiness: noBusiness.business },
  /** … someone else's: the owner or an admin. */
  'customer_notes.delete_any': { roles: managers, refusal: 'Only its author, the owner or an admin can delete a note', noBusiness: noBusiness.business },
  /** CSV export of every customer, and the import that upserts many: bulk personal data, for the owner and admins. */
  'customers.export_all': { roles: managers, refusal: 'Only the owner or an admin can export customers', noBusiness: noBusiness.business },
  'customers.import': { roles: managers, refusal: 'Only the owner or an admin can import customers', noBusiness: noBusiness.business },
  'retention.read': { roles: everyone, noBusiness: noBusiness.business },
  'retention.update': { roles: managers, refusal: 'Only the owner or an admin can change data retention', noBusiness: noBusiness.business },
  /** GET /search: every conversation, customer and message of the business, private notes included. */
  'search.read': { roles: everyone, noBusiness: noBusiness.business },

  'kb.read': { roles: everyone, noBusiness: noBusiness.organization },
  'kb.write': { roles: everyone, noBusiness: noBusiness.organization },
  'kb.delete': { roles: everyone, noBusiness: noBusiness.article },
  'ai_settings.read': { roles: everyone, noBusiness: noBusiness.organization },
  'ai_settings.update': { roles: managers, refusal: 'Only the owner or an admin can change the AI settings', noBusiness: noBusiness.organization },
  'analytics.read': { roles: everyone, noBusiness: noBusiness.organization },
  /** Reports compare agents with one another: the owner and admins (Chatwoot: administrators), and `read` API keys of theirs. */
  'reports.read': { roles: managers, refusal: 'Only the owner or an admin can read reports', noBusiness: noBusiness.organization },

  /** API keys are made and revoked by people only: a key cannot make a key. */
  'api_keys.manage': { roles: managers, scope: null, refusal: 'Only the owner or an admin can manage API keys', noBusiness: noBusiness.business },
  /** Webhook endpoints: integrations subscribe themselves with an `admin` key. */
  /** The widget's identity-verification secret signs who a visitor is: seen and rotated by the owner and admins. */
  'widget_identity.manage': {
    roles: managers,
    refusal: 'Only the owner or an admin can see or rotate the identity verification secret',
    noBusiness: noBusiness.organization,
  },
  'webhooks.manage': { roles: managers, refusal: 'Only the owner or an admin can manage webhooks', noBusiness: noBusiness.business },
  'audit_log.read': { roles: managers, scope: 'admin', refusal: 'Only the owner or an admin can read the audit log', noBusiness: noBusiness.business },
  /** Routing: every member sees how work is routed (and their own load); the owner and admins change it. */
  'assignment_settings.read': { roles: everyone, noBusiness: noBusiness.business },
  'assignment_settings.update': { roles: managers, refusal: 'Only the owner or an admin can change auto-assignment', noBusiness: noBusiness.business },
  'business_hours.read': { roles: everyone, noBusiness: noBusiness.business },
  'business_hours.update': { roles: managers, refusal: 'Only the owner or an admin can change business hours', noBusiness: noBusiness.business },
  /** Requiring two-factor sign-in of every member: the owner alone, signed in (a key could lock the team out of its own app). */
  'security_settings.read': { roles: everyone, noBusiness: noBusiness.business },
  'security_settings.update': {
    roles: ownerOnly,
    scope: null,
    refusal: 'Only the business owner can change the security settings',
    noBusiness: noBusiness.business,
  },
  /** SLA policies: every member sees the targets the inbox holds them to; the owner and admins set them. */
  'sla_policies.read': { roles: everyone, noBusiness: noBusiness.business },
  'sla_policies.manage': { roles: managers, refusal: 'Only the owner or an admin can manage SLA policies', noBusiness: noBusiness.business },
  /** CSAT: every member sees whether customers are asked; the owner and admins switch it and word the question. */
  'csat_settings.read': { roles: everyone, noBusiness: noBusiness.business },
  'csat_settings.update': { roles: managers, refusal: 'Only the owner or an admin can change the CSAT settings', noBusiness: noBusiness.business },
} as const satisfies Record<string, Rule>;

export type Action = keyof typeof policies;
export const actions = Object.keys(policies) as Action[];

/** The API key scope `action` needs; null when no key may do it. */
export function scopeOf(action: Action): Scope | null {
  const rule: Rule = policies[action];
  if (rule.scope !== undefined) return rule.scope;
  if (action.endsWith('.read')) return 'read';
  return rule.roles.includes('agent') ? 'write' : 'admin';
}

/**
 * The caller's membership when their role may do `action` (and, for an API key, the key has the
 * action's scope): otherwise the action's own 400/404 (no business) or 403.
 */
export function authorize(caller: Caller, action: Action): Member {
  const rule: Rule = policies[action];
  if (!caller.member) throw rule.noBusiness();
  if (caller.twoFactorSetupRequired && !rule.beforeTwoFactor) throw forbidden(TWO_FACTOR_SETUP_REQUIRED);
  if (caller.apiKey) {
    const scope = scopeOf(action);
    if (scope === null) throw forbidden('API keys cannot do this; sign in as a person');
    if (!caller.apiKey.scopes.includes(scope)) throw forbidden(`This API key lacks the \`${scope}\` scope`);
  }
  if (!rule.roles.includes(caller.member.role)) throw forbidden(rule.refusal ?? 'Not allowed');
  return caller.member;
}

/**
 * Every action, and whether `role` may do it (all false without a business): `can` on GET
 * /auth/me. `twoFactorSetupRequired`: only the actions allowed before two-factor is set up.
 */
export function abilities(role: Role | null, options: { twoFactorSetupRequired?: boolean } = {}): Record<Action, boolean> {
  return Object.fromEntries(
    actions.map((action) => {
      const rule: Rule = policies[action];
      const allowed = role !== null && rule.roles.includes(role) && (!options.twoFactorSetupRequired || rule.beforeTwoFactor === true);
      return [action, allowed];
    }),
  ) as Record<Action, boolean>;
}

const roleNames = (roles: readonly Role[]) => (roles.length === everyone.length ? 'any member (owner, admin or agent)' : roles.join(' or '));

/** The sentence each operation's OpenAPI description ends with. */
export function policyText(action: Action): string {
  const rule: Rule = policies[action];
  const scope = scopeOf(action);
  const keys = scope ? `An API key needs the \`${scope}\` scope.` : 'Not with an API key.';
  return `Who may call: ${roleNames(rule.roles)} (policy \`${action}\`${rule.refusal ? `; others get 403` : ''}). ${keys}`;
}
