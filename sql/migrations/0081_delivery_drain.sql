-- Replies go out in the order they were stored, one conversation at a time (issue 16): a
-- conversation's queued replies are delivered by one drain job (deliver_message
-- {conversation_id}, key deliver:<conversation>), oldest first, instead of one job per reply
-- racing the others. See core/commands/delivery-drain.ts.

-- A reply's delivery attempts, kept on the reply (they were the per-reply job's): how many
-- failed transiently, and when the drain tries it again (a backoff, or the platform's Retry-After).
alter table messages
  add column delivery_attempts smallint not null default 0,
  add column next_delivery_at timestamptz;

-- The drain's "oldest queued reply of this conversation", and the partial index stays small:
-- a reply leaves it as soon as it is sent or failed.
create index messages_queued_idx on messages (conversation_id, created_at, id) where delivery_status = 'queued';

-- The drain's arming (delivery_arm_drain) and start (delivery_drain_started): migration 0085,
-- beside the graphile-worker internals they use.

-- Replies queued before this migration had a job each (key message:<id>); the task still
-- takes {message_id} (it re-arms that reply's conversation), so they are delivered as before.
