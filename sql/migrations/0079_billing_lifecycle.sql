-- The subscription lifecycle (issue #21 item 3): Stripe's subscription events find their business
-- by its subscription id, and a subscription that is past due keeps its plan for a grace period
-- that starts at `past_due_since` (core/commands/billing.ts, workers/tasks/end_billing_grace.ts).
alter table businesses add column past_due_since timestamptz;

create index businesses_stripe_subscription_idx on businesses (stripe_subscription_id) where stripe_subscription_id is not null;
create index businesses_past_due_idx on businesses (past_due_since) where past_due_since is not null;
