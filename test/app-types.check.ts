/**
 * The agent app's API types (app/types.ts, written by hand: the browser bundle imports nothing
 * from the server) checked against the zod schemas the server validates and documents its
 * responses with. No runtime: `tsc --noEmit` (CI) fails here when a response changes in a way
 * the app does not expect — a field renamed, removed, retyped or made nullable.
 *
 * Each line says: what the server sends fits what the app reads ([server] extends [app]).
 */
import type { z } from 'zod';
import type * as App from '../app/types.ts';
import type { userSchema } from '../api/presenters/user.ts';
import type { businessSchema } from '../api/presenters/business.ts';
import type { meResponse } from '../api/routes/auth/schema.ts';
import type { Action } from '../api/policies.ts';
import type { Message } from '../core/presenters/message.ts';
import type { Mention } from '../core/presenters/mention.ts';
import type { Activity } from '../core/presenters/activity.ts';
import type { Customer } from '../core/presenters/customer.ts';
import type { Conversation, ConversationListItem } from '../core/presenters/conversation.ts';
import type { ChannelOutput } from '../api/presenters/channel.ts';
import type { WidgetOutput } from '../core/presenters/widget.ts';
import type { articleSchema } from '../api/presenters/article.ts';
import type { searchResult } from '../api/routes/kb/schema.ts';
import type { searchHit } from '../api/routes/search/schema.ts';
import type { teamMemberSchema } from '../api/presenters/team-member.ts';
import type { planResponse } from '../api/routes/business/plan.ts';
import type { Visit } from '../core/domain/visitors/visitor-context.ts';
import type { overviewSchema } from '../api/routes/analytics/routes.ts';
import type { channelTypeSchema } from '../api/routes/channel-types/schema.ts';
import type { CannedResponse, Label } from '../core/presenters/label.ts';
import type { deliverySchema } from '../api/routes/platform/schema.ts';
import type { attributeDefinitionSchema } from '../api/routes/customers/attributes.ts';
import type { customerNoteSchema } from '../api/routes/customers/notes.ts';

/** `true` only when every value the server may send is one the app's type accepts. */
type Fits<Server, AppType> = [Server] extends [AppType] ? true : false;
/** Compiles only for `true`: a mismatch is a type error on its line, naming the pair. */
type Holds<T extends true> = T;

export type AppTypesFitTheServer = [
  Holds<Fits<z.infer<typeof userSchema>, App.User>>,
  Holds<Fits<z.infer<typeof businessSchema>, App.Business>>,
  Holds<Fits<z.infer<typeof meResponse>, App.Me>>,
  // The app's list of policy actions is the server's, both ways: a typo in the app fails too.
  Holds<Fits<Action, App.Action>>,
  Holds<Fits<App.Action, Action>>,
  Holds<Fits<Message, App.Message>>,
  Holds<Fits<Mention, App.Mention>>,
  Holds<Fits<Activity, App.Activity>>,
  Holds<Fits<Customer, App.Customer>>,
  Holds<Fits<Conversation, App.ConversationDetail>>,
  Holds<Fits<ConversationListItem, App.ConversationListItem>>,
  Holds<Fits<ChannelOutput, App.Channel>>,
  Holds<Fits<WidgetOutput, App.Widget>>,
  Holds<Fits<z.infer<typeof articleSchema>, App.Article>>,
  Holds<Fits<z.infer<typeof searchResult>, App.SearchHit>>,
  Holds<Fits<z.infer<typeof searchHit>, App.HistoryHit>>,
  Holds<Fits<z.infer<typeof teamMemberSchema>, App.Member>>,
  Holds<Fits<z.infer<typeof planResponse>, App.PlanInfo>>,
  Holds<Fits<Visit, App.Visit>>,
  Holds<Fits<z.infer<typeof overviewSchema>, App.Overview>>,
  Holds<Fits<z.infer<typeof channelTypeSchema>, App.ChannelTypeInfo>>,
  Holds<Fits<Label, App.Label>>,
  Holds<Fits<CannedResponse, App.CannedResponse>>,
  Holds<Fits<z.infer<typeof deliverySchema>, App.WebhookDelivery>>,
  Holds<Fits<z.infer<typeof attributeDefinitionSchema>, App.AttributeDefinition>>,
  Holds<Fits<z.infer<typeof customerNoteSchema>, App.CustomerNote>>,
];
