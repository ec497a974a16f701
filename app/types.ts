/**
 * The API objects the app reads (see GET /api/v1/openapi.json for every field). Written by hand
 * (the bundle imports nothing from the server); test/app-types.check.ts type-checks them against
 * the server's response schemas.
 */

export type Role = 'owner' | 'admin' | 'agent';
export type Availability = 'live' | 'away' | 'offline';
export type ConversationStatus = 'open' | 'pending' | 'resolved' | 'closed';
export type Priority = 'none' | 'low' | 'medium' | 'high' | 'urgent';
/** A channel type's name (`whatsapp`, `widget`, …): the server's connectors say which exist (GET /channel-types). */
export type ChannelType = string;

/** One field of a channel type's config, as its connect form shows it. */
export type ChannelField = {
  key: string;
  label: string;
  required: boolean;
  secret: boolean;
  placeholder?: string | null;
  input: 'text' | 'number' | 'email' | 'textarea';
};

/** A value to copy into the platform after connecting: `source` names it on the channel (`webhook_url`, `config.verify_token`). */
export type SetupValue = { label: string; source: string };

/** A channel type as its connector describes it (GET /api/v1/channel-types). */
export type ChannelTypeInfo = {
  type: ChannelType;
  label: string;
  /** Parley is the platform (webchat, widget): nothing to connect. */
  internal: boolean;
  intro: string;
  fields: ChannelField[];
  icon: { color: string; path: string };
  /** The config field that tells two channels of this type apart in a list (a number, an address), or null. */
  title_field: string | null;
  /** What to set in the platform once connected, shown on the channel's card; null when Parley does it all. */
  after_connect: { text: string; values: SetupValue[] } | null;
};

export type User = { id: string; email: string; full_name: string; is_verified: boolean; is_google_account: boolean; avatar_url: string | null };
export type Business = { id: string; name: string; website: string; industry: string; team_size: string; goal: string; created_at: string };
/** An action of the server's policy table (api/policies.ts); test/app-types.check.ts keeps the two lists equal. */
export type Action =
  | 'business.read'
  | 'conversations.forward'
  | 'team.set_own_signature'
  | 'business.update'
  | 'plan.read'
  | 'billing.checkout'
  | 'channels.read'
  | 'channels.manage'
  | 'widgets.read'
  | 'widgets.manage'
  | 'team.read'
  | 'team.set_own_status'
  | 'team.invite'
  | 'team.remove'
  | 'team.leave'
  | 'handoffs.read'
  | 'conversations.read'
  | 'conversations.create'
  | 'conversations.reply'
  | 'mentions.read'
  | 'mentions.mark_read'
  | 'conversations.change_status'
  | 'conversations.take'
  | 'conversations.merge'
  | 'conversations.assign'
  | 'conversations.snooze'
  | 'conversations.set_priority'
  | 'conversations.bulk'
  | 'conversations.label'
  | 'labels.read'
  | 'labels.manage'
  | 'teams.read'
  | 'teams.manage'
  | 'conversations.set_team'
  | 'canned_responses.read'
  | 'canned_responses.manage'
  | 'customers.read'
  | 'customers.update'
  | 'customers.merge'
  | 'customers.export'
  | 'customers.erase'
  | 'customer_attributes.read'
  | 'customer_attributes.manage'
  | 'customer_notes.read'
  | 'customer_notes.write'
  | 'customer_notes.delete_any'
  | 'customers.export_all'
  | 'customers.import'
  | 'widget_identity.manage'
  | 'retention.read'
  | 'retention.update'
  | 'search.read'
  | 'kb.read'
  | 'kb.write'
  | 'kb.delete'
  | 'ai_settings.read'
  | 'ai_settings.update'
  | 'analytics.read'
  | 'reports.read'
  | 'api_keys.manage'
  | 'webhooks.manage'
  | 'audit_log.read'
  | 'assignment_settings.read'
  | 'assignment_settings.update'
  | 'business_hours.read'
  | 'business_hours.update'
  | 'security_settings.read'
  | 'security_settings.update'
  | 'sla_policies.read'
  | 'sla_policies.manage'
  | 'csat_settings.read'
  | 'csat_settings.update';

/** `can`: what the signed-in user may do, from the server's policy table (the app has no role logic of its own). */
export type Me = {
  user: User;
  business: Business | null;
  onboarding_complete: boolean;
  team_role: Role | null;
  can: Record<Action, boolean>;
  two_factor: TwoFactorStatus;
};

/** GET /auth/me `two_factor`: `setup_required` means the business requires it and this user has not turned it on (the app shows only the setup). */
export type TwoFactorStatus = { enabled: boolean; recovery_codes_left: number; required_by_business: boolean; setup_required: boolean };

/** POST /auth/login and /auth/google when two-factor is on: no token yet, the second step's challenge. */
export type TwoFactorChallenge = { two_factor_required: true; challenge_token: string; expires_in: number };

export type Attachment = {
  url?: string;
  filename?: string;
  content_type?: string;
  size?: number;
  /** A customer's media: `pending` while it is downloaded from the platform, then `stored` (ours) or `failed` (with `error`). */
  status?: 'pending' | 'stored' | 'failed';
  error?: string;
};

/** An approved WhatsApp template of a channel (GET /channels/{id}/templates). */
export type WhatsAppTemplate = { name: string; language: string; category: string; status: string; body: string; parameter_count: number; synced_at: string };

export type Message = {
  id: string;
  conversation_id: string;
  sender_type: 'agent' | 'customer' | 'ai' | 'system';
  sender_id: string | null;
  content: string;
  attachments: Attachment[];
  delivery_status: 'scheduled' | 'queued' | 'sent' | 'delivered' | 'read' | 'failed' | null;
  error: string | null;
  /** A private note of the team: never shown to the customer. */
  private: boolean;
  /** A scheduled reply ("Send later"): when it goes out; editable while `delivery_status` is `scheduled`. */
  send_at: string | null;
  created_at: string;
  /** Customer e-mail: its HTML, sanitized by the server; remote images blocked unless fetched with `images=1`. */
  html_sanitized?: string | null;
  remote_images?: number;
  email?: EmailDetails | null;
};

export type EmailAddress = { address: string; name?: string };
export type EmailDetails = {
  to: EmailAddress[];
  cc: EmailAddress[];
  bcc: EmailAddress[];
  signature: string | null;
  forward_to: EmailAddress[] | null;
  forwarded_message_ids: string[] | null;
};
/** GET /api/v1/conversations/{id}/reply-recipients */
export type ReplyRecipients = { from: string; to: EmailAddress | null; cc: EmailAddress[]; signature: string | null };

/** One mention of the signed-in member in a private note (GET /api/v1/mentions). */
export type Mention = {
  id: string;
  member_id: string;
  conversation_id: string;
  message_id: string;
  mentioned_by: string | null;
  mentioned_by_name: string | null;
  customer_name: string | null;
  conversation_status: string;
  message: Message;
  read_at: string | null;
  created_at: string;
};

export type AttributeValue = string | number | boolean;
export type AttributeType = 'text' | 'number' | 'date' | 'boolean' | 'list';
/** A custom field the business defined (Settings → Customer attributes). */
export type AttributeDefinition = { key: string; label: string; type: AttributeType; options?: string[] };
export type CustomerNote = { id: string; customer_id: number; author_id: string | null; author_name: string; body: string; created_at: string };
export type CustomerImportResult = { created: number; updated: number; errors: { line: number; column: string | null; msg: string }[] };
export type Customer = {
  id: number;
  uuid: string;
  name: string;
  email: string | null;
  phone: string | null;
  external_id: string | null;
  attributes: Record<string, AttributeValue>;
  created_at: string;
};

export type Conversation = {
  id: string;
  customer_id: string | null;
  assignee_id: string | null;
  status: ConversationStatus;
  channel_type: ChannelType;
  channel_id: string | null;
  created_at: string;
  updated_at: string;
  last_message_at: string | null;
  /** The first agent reply (SLA first response). */
  first_response_at?: string | null;
  handoff_reason: string | null;
  /** WhatsApp: when free-form replies stop being allowed (null elsewhere). */
  reply_window_expires_at: string | null;
  /** Set aside until `snoozed_until`, or (null) until the customer writes. */
  snoozed: boolean;
  snoozed_until: string | null;
  priority: Priority;
  /** Its team (GET /api/v1/teams); null: none. */
  team_id: string | null;
  customer: Customer | null;
  /** Label names, alphabetical. */
  labels: string[];
  /** Due times under the SLA policy it follows; null when none applies. Absent from older servers. */
  sla?: ConversationSla | null;
  /** The satisfaction survey sent when it was resolved; null when none. */
  csat?: ConversationCsat | null;
};
export type SlaTarget = 'first_response' | 'next_response' | 'resolution';
export type ConversationSla = {
  policy_id: string;
  policy_name: string;
  first_response_due_at: string | null;
  next_response_due_at: string | null;
  resolution_due_at: string | null;
  due_at: string | null;
  state: 'breached' | 'due_soon' | 'on_track' | 'none';
  breaches: { target: SlaTarget; due_at: string; breached_at: string }[];
};
export type ConversationCsat = { question: string; asked_at: string; rating: number | null; comment: string | null; rated_at: string | null };
export type SlaPolicy = {
  id: string;
  name: string;
  first_response_minutes: number | null;
  next_response_minutes: number | null;
  resolution_minutes: number | null;
  business_hours_only: boolean;
  channel_ids: string[];
  labels: string[];
  created_at: string;
  updated_at: string;
};
/**
 * `last_message`: the latest message the customer can see (automatic ones included);
 * `preview_message`: the latest one a person wrote (customer, agent, AI), which the row shows.
 */
export type ConversationListItem = Conversation & { last_message: Message | null; preview_message: Message | null };
export type ConversationDetail = Conversation & { messages: Message[] };

export type Team = { id: string; name: string; description: string; member_count: number; created_at: string; updated_at: string };
export type Label = { id: string; name: string; color: string; description: string; created_at: string; updated_at: string };
export type CannedResponse = { id: string; short_code: string; content: string; created_at: string; updated_at: string };

export type Member = {
  id: string;
  user_id: string;
  email: string;
  name: string;
  role: Role;
  status: Availability;
  is_active: boolean;
  invited_at: string;
  agent_number: number;
};

export type Channel = {
  id: string;
  type: ChannelType;
  config: Record<string, unknown>;
  is_active: boolean;
  created_at: string;
  status: 'pending' | 'connected' | 'error';
  last_error: string | null;
  /** The platform asked to stop sending until then (a 429); null: not held. */
  send_held_until: string | null;
  is_builtin: boolean;
  /** Conversations opened on the channel start in this team; null: none. */
  default_team_id: string | null;
  webhook_url: string | null;
  inbound_webhook: { url: string; secret: string } | null;
};

export type Widget = {
  id: string;
  name: string;
  domain: string;
  welcome_heading: string;
  welcome_tagline: string;
  primary_color: string;
  show_online_badge: boolean;
  logo_url: string | null;
};

export type Article = { id: number; title: string; content: string; tags: string[]; created_at: string; index_status: 'pending' | 'indexed' | 'failed' };
export type SearchHit = { article_id: number; title: string; snippet: string; score: number };

/** A website visitor's visit as the widget last reported it (GET /api/v1/customers/{id}/visit). */
export type Visit = {
  page_url: string | null;
  page_title: string | null;
  referrer: string | null;
  /** From the User-Agent: `Firefox 128`; null when not recognised. */
  browser: string | null;
  os: string | null;
  language: string | null;
  /** IANA time zone: the app shows the visitor's local time. */
  timezone: string | null;
  /** Pages seen in this visit, oldest first. */
  pages: { url: string; title: string | null; at: string }[];
  seen_at: string;
};

export type PlanInfo = {
  plan: 'Free' | 'Mini' | 'Pro';
  /** The server sells plans (Stripe); false: its operator sets them, and nothing offers an upgrade. */
  billing: boolean;
  limits: { agents: number; channels: number; kb_articles: number; max_messages_per_month: number; ai_auto_reply: boolean };
  usage: { agents: number; channels: number; kb_articles: number; messages_this_month: number };
};

/** The figures of a report row (GET /api/v1/reports/…): times in whole seconds, null without a sample. */
export type ReportFigures = {
  opened: number;
  resolved: number;
  first_response_median: number | null;
  first_response_p90: number | null;
  resolution_median: number | null;
  resolution_p90: number | null;
};
export type ReportRange = { from: string; to: string; tz: string };
/** How a time report measured: only open time (business hours on), or calendar time. */
export type TimedRange = ReportRange & { time_basis: 'business_hours' | 'calendar' };
export type OverviewReport = TimedRange & { totals: ReportFigures; days: (ReportFigures & { date: string })[] };
export type AgentsReport = TimedRange & { rows: (ReportFigures & { user_id: string | null; name: string })[] };
export type ChannelsReport = TimedRange & { rows: (ReportFigures & { channel_type: string })[] };
export type LabelsReport = TimedRange & { rows: (ReportFigures & { label_id: string; name: string; color: string })[] };
export type CsatFigures = {
  asked: number;
  responses: number;
  average: number | null;
  satisfied_percent: number | null;
  distribution: Record<'1' | '2' | '3' | '4' | '5', number>;
};
export type CsatReport = ReportRange & { totals: CsatFigures; days: (CsatFigures & { date: string })[] };
export type SlaTargetFigures = { met: number; breached: number; hit_rate: number | null };
export type SlaFigures = { first_response: SlaTargetFigures; next_response: SlaTargetFigures; resolution: SlaTargetFigures; breaches: number };
export type SlaReport = ReportRange & {
  totals: SlaFigures;
  days: (SlaFigures & { date: string })[];
  policies: (SlaFigures & { policy_id: string; name: string })[];
};

export type Overview = {
  total_conversations: number;
  avg_first_response: number;
  resolution_rate: number;
  active_agents: number;
  channel_mix: Record<string, number>;
  top_agents: { name: string; resolved: number }[];
  quick_pulse_open: number;
  median_handle_time: number;
  customer_happiness: number;
};

/** A piece of a search snippet (GET /api/v1/search): render `text` as text, highlighted when `match`. */
export type SnippetSegment = { text: string; match: boolean };
/** One result of GET /api/v1/search, by `type`. */
export type HistoryHit =
  | {
      type: 'message';
      id: string;
      conversation_id: string;
      sender_type: string;
      private: boolean;
      created_at: string;
      customer: { uuid: string; name: string } | null;
      snippet: SnippetSegment[];
    }
  | {
      type: 'customer';
      uuid: string;
      id: number;
      name: string;
      email: string | null;
      phone: string | null;
      created_at: string;
      latest_conversation_id: string | null;
      snippet: SnippetSegment[];
    }
  | {
      type: 'conversation';
      id: string;
      status: string;
      channel_type: string;
      updated_at: string;
      customer: { uuid: string; name: string; email: string | null; phone: string | null } | null;
      matched_in: 'message' | 'customer';
      snippet: SnippetSegment[];
    };

/** An API key as listed (never the key itself); `key` only in the answer to creating it. */
export type ApiKeyScope = 'read' | 'write' | 'admin';
export type ApiKey = {
  id: string;
  name: string;
  scopes: ApiKeyScope[];
  prefix: string;
  created_by: string | null;
  created_by_name: string | null;
  created_at: string;
  last_used_at: string | null;
};
export type Webhook = {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  disabled_reason: string | null;
  last_success_at: string | null;
  created_at: string;
  updated_at: string;
};
export type WebhookDelivery = {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  response_status: number | null;
  response_ms: number | null;
  last_error: string | null;
  created_at: string;
  last_attempt_at: string | null;
  delivered_at: string | null;
  /** The delivery this one sends again (Redeliver); null for the first of its event. */
  redelivery_of: string | null;
};
export type AuditEntry = {
  id: string;
  action: string;
  actor: { type: 'user' | 'api_key' | 'system'; user_id: string | null; api_key_id: string | null; name: string };
  target_type: string;
  target_id: string | null;
  details: Record<string, unknown>;
  created_at: string;
};

/** One entry of a conversation's activity history (GET /conversations/{id}/events). */
export type Activity = {
  id: string;
  type: string;
  at: string;
  actor: { type: 'member' | 'customer' | 'ai' | 'system' | 'api_key'; id: string | null; name: string | null };
  data: Record<string, unknown>;
};
