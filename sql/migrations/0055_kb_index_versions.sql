-- A counter per business, bumped as the last statement of every transaction that changes the
-- business's kb_chunks (an article indexed, re-indexed or deleted: core/domain/knowledge-base/vector-cache.ts).
-- Each process caches a business's decoded vectors tagged with this counter and checks it with
-- one primary-key probe per search, so a cache is never used once the index has changed: a
-- deleted article leaves search at once. Bumped last, the row is locked for one statement.
create table kb_index_versions (
  business_id uuid primary key references businesses (id) on delete cascade,
  version bigint not null check (version > 0)
);
