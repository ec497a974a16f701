/** Every worker task. A new task adds its entry to the job catalogue (core/jobs.ts) and one line here. */
import type { AnyTask } from '../task.ts';
import sendEmail from './send_email.ts';
import deliverMessage from './deliver_message.ts';
import processInbound from './process_inbound.ts';
import registerChannel from './register_channel.ts';
import pollChannels from './poll_channels.ts';
import pollChannel from './poll_channel.ts';
import indexArticle from './index_article.ts';
import aiReply from './ai_reply.ts';
import endBillingGrace from './end_billing_grace.ts';
import fetchAttachment from './fetch_attachment.ts';
import fetchCustomerName from './fetch_customer_name.ts';
import dispatchWebhooks from './dispatch_webhooks.ts';
import deliverWebhook from './deliver_webhook.ts';
import autoAssign from './auto_assign.ts';
import removeUnattachedUploads from './remove_unattached_uploads.ts';
import outOfHoursReply from './out_of_hours_reply.ts';
import slaRefresh from './sla_refresh.ts';
import slaCheck from './sla_check.ts';
import csatRequest from './csat_request.ts';
import sendScheduledReply from './send_scheduled_reply.ts';
import releaseScheduledReplies from './release_scheduled_replies.ts';
import wakeSnoozedConversations from './wake_snoozed_conversations.ts';
import eraseCustomer from './erase_customer.ts';
import applyRetention from './apply_retention.ts';
import handleEvents from './handle_events.ts';
import retrySubscriber from './retry_subscriber.ts';

export const allTasks: AnyTask[] = [
  handleEvents,
  retrySubscriber,
  sendEmail,
  deliverMessage,
  processInbound,
  registerChannel,
  pollChannels,
  pollChannel,
  indexArticle,
  aiReply,
  endBillingGrace,
  fetchAttachment,
  fetchCustomerName,
  dispatchWebhooks,
  deliverWebhook,
  autoAssign,
  outOfHoursReply,
  removeUnattachedUploads,
  sendScheduledReply,
  releaseScheduledReplies,
  wakeSnoozedConversations,
  eraseCustomer,
  applyRetention,
  slaRefresh,
  slaCheck,
  csatRequest,
];
