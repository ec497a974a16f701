-- Search over all history (GET /api/v1/search, core/domain/search/) and knowledge-base full-text
-- search (core/domain/knowledge-base/text-search.ts). See docs/decisions.md#search.
--
-- Both extensions ship with PostgreSQL's contrib, present in the system PostgreSQL 15 and the
-- embedded PostgreSQL 18 that `npm start` and `npm test` boot.
create extension if not exists pg_trgm;
-- btree_gin lets one GIN index hold business_id beside the words, so "this business's messages
-- with these words" is one index search instead of every business's matches filtered on the heap.
create extension if not exists btree_gin;

-- Messages: the words of the text with the language-neutral `simple` configuration (lower-cased
-- words, no stemming, no stop words), so a word of any language is found as written. Stored, not
-- an expression index: the walk below tests many messages' words, and recomputing to_tsvector for each would cost more.
alter table messages add column search_vector tsvector generated always as (to_tsvector('simple'::regconfig, content)) stored;

-- Two paths (core/domain/search/history-search.ts, WALK_WINDOWS): the business's newest messages
-- are walked in time order and tested word by word; when the words are rarer than that walk can
-- find, the GIN index returns the older matches, few enough to sort. The btree does not carry
-- the words (INCLUDE search_vector would make the walk index-only, about ten times faster, but a
-- long message's vector exceeds a btree entry's 2.7 kB and its INSERT would fail).
create index messages_business_search_idx on messages using gin (business_id, search_vector);
create index messages_business_created_idx on messages (business_id, created_at desc, id desc);

-- Customers: partial names, e-mail addresses and phone numbers (trigrams), within one business.
-- The phone is compared by its digits, so "555 0102" finds "+1 (555) 010-2030"'s neighbours as typed either way.
create index customers_business_name_trgm_idx on customers using gin (business_id, name gin_trgm_ops);
create index customers_business_email_trgm_idx on customers using gin (business_id, email gin_trgm_ops) where email is not null;
create index customers_business_phone_digits_trgm_idx on customers
  using gin (business_id, (regexp_replace(phone, '\D', '', 'g')) gin_trgm_ops) where phone is not null;
-- Superseded by the per-business ones above (0004 created them only where pg_trgm was available);
-- customers_phone_trgm_idx stays for GET /customers?q=, which matches the phone as typed.
drop index if exists customers_name_trgm_idx;
drop index if exists customers_email_trgm_idx;
create index if not exists customers_phone_trgm_idx on customers using gin (phone gin_trgm_ops);

-- Knowledge base articles: full text answers without any model. The title weighs more than the body.
alter table kb_articles add column search_vector tsvector generated always as (
  setweight(to_tsvector('simple'::regconfig, title), 'A') || setweight(to_tsvector('simple'::regconfig, content), 'B')
) stored;
create index kb_articles_business_search_idx on kb_articles using gin (business_id, search_vector);
