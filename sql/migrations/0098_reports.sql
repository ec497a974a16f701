-- Reports (docs/decisions.md#reports): each report reads two cohorts of one business's
-- conversations, those created in a range of days and those resolved in it, by index range scans
-- that need not visit the table.
--
-- The created-at index gains assignee_id (the agents report) and id (the labels report joins
-- conversation_labels on it); the analytics overview keeps using it as before.
drop index if exists conversations_business_created_idx;
create index conversations_business_created_idx on conversations (business_id, created_at)
  include (channel_type, resolved_by, resolved_at, first_response_at, assignee_id, id);

-- Resolutions by when they happened (resolved_at is cleared on reopen).
create index conversations_business_resolved_idx on conversations (business_id, resolved_at)
  include (created_at, resolved_by, channel_type, id)
  where resolved_at is not null;
