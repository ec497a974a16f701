-- Analytics overview (core/domain/analytics.ts): the 30-day window of one business is read by a
-- range scan of (business_id, created_at). Carrying the columns the overview aggregates in the
-- index lets that scan be index-only instead of visiting every conversation row: about half the
-- time at 100,000 conversations (bench/analytics.ts). Same key columns and name as before, so
-- every query that used the old index keeps using this one.
drop index if exists conversations_business_created_idx;
create index conversations_business_created_idx on conversations (business_id, created_at)
  include (channel_type, resolved_by, resolved_at, first_response_at);
