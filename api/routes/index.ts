/** Every route group of the API. Each group's routes.ts exports its routes as the default. */
import type { AnyRoute } from '../route.ts';
import system from './system/routes.ts';
import auth from './auth/routes.ts';
import business from './business/routes.ts';
import team from './team/routes.ts';
import conversations from './conversations/routes.ts';
import conversationActivity from './conversations/activity.ts';
import customers from './customers/routes.ts';
import customersCsv from './customers/csv.ts';
import customerNotes from './customers/notes.ts';
import customerAttributes from './customers/attributes.ts';
import channels from './channels/routes.ts';
import channelTypes from './channel-types/routes.ts';
import widgets from './widgets/routes.ts';
import widgetIdentity from './widgets/identity.ts';
import kb from './kb/routes.ts';
import analytics from './analytics/routes.ts';
import reports from './reports/routes.ts';
import billing from './billing/routes.ts';
import ai from './ai/routes.ts';
import webhooks from './webhooks/routes.ts';
import visitor from './visitor/routes.ts';
import search from './search/routes.ts';
import labels from './labels/routes.ts';
import teams from './teams/routes.ts';
import cannedResponses from './canned-responses/routes.ts';
import mentions from './mentions/routes.ts';
import agentApp from './app/routes.ts';
import platform from './platform/routes.ts';
import settings from './settings/routes.ts';
import sla from './sla/routes.ts';
import csat from './csat/routes.ts';

export const allRoutes: AnyRoute[] = [
  ...system,
  ...auth,
  ...business,
  ...team,
  ...conversations,
  ...conversationActivity,
  // Before customers: /customers/export.csv is not a customer id.
  ...customersCsv,
  ...customers,
  ...customerNotes,
  ...customerAttributes,
  ...search,
  ...labels,
  ...teams,
  ...cannedResponses,
  ...mentions,
  ...channels,
  ...channelTypes,
  ...widgets,
  ...widgetIdentity,
  ...kb,
  ...analytics,
  ...reports,
  ...billing,
  ...ai,
  ...platform,
  ...settings,
  ...sla,
  ...csat,
  ...webhooks,
  ...visitor,
  ...agentApp,
];
