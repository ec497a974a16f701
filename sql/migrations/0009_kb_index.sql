-- The knowledge base's semantic index (core/domain/knowledge-base/search-index.ts): each article cut into chunks, each
-- chunk with its embedding. pgvector is not available everywhere Parley runs (the embedded
-- PostgreSQL has no extensions), so vectors are plain bytes: float32, little-endian, unit
-- length, ranked by the application (reading bytea and multiplying in JavaScript is about ten
-- times faster than unnest-ing real[] in SQL; see core/domain/knowledge-base/search-index.ts).

create table kb_chunks (
  id bigint generated always as identity primary key,
  -- deleting an article removes its chunks in the same statement: out of search at once
  article_id bigint not null references kb_articles (id) on delete cascade,
  business_id uuid not null references businesses (id) on delete cascade,
  -- position of the chunk in its article, from 0
  ordinal integer not null check (ordinal >= 0),
  content text not null,
  -- the embedding model that made the vector: vectors of different models never compare
  model text not null,
  -- number of float32 values in `embedding`
  dims integer not null check (dims > 0),
  embedding bytea not null check (length(embedding) = dims * 4),
  created_at timestamptz not null default now(),
  -- also serves the cascade from kb_articles and the delete-then-insert of a re-index
  unique (article_id, ordinal)
);
-- Every search reads one business's chunks of one model.
create index kb_chunks_business_model_idx on kb_chunks (business_id, model);
