-- Customer records, the rest of issue #20 item 3: typed attribute definitions per business,
-- notes on a customer, the attribute filter's index, the import's e-mail lookup, and each
-- widget's identity-verification secret (docs/decisions.md#customer-records).

-- The business's custom fields: what PATCH /customers/{id} `attributes` may hold, and as what.
create table customer_attribute_definitions (
  business_id uuid not null references businesses (id) on delete cascade,
  key text not null check (key ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,49}$'),
  label text not null check (char_length(label) between 1 and 100),
  type text not null check (type in ('text', 'number', 'date', 'boolean', 'list')),
  -- The choices of a `list`; null for every other type.
  options text[] check ((type = 'list') = (options is not null) and (options is null or cardinality(options) between 1 and 100)),
  -- Order shown (the order of the PUT).
  position integer not null check (position >= 0),
  primary key (business_id, key)
);

-- Notes the team keeps on a customer (not on one conversation). They go with the customer: a
-- merge moves them, an erasure deletes them (cascade with the row).
create table customer_notes (
  business_id uuid not null,
  id uuid not null default gen_random_uuid(),
  customer_id uuid not null,
  author_id uuid references users (id) on delete set null,
  author_name text not null,
  body text not null check (char_length(body) between 1 and 5000),
  created_at timestamptz not null default now(),
  primary key (business_id, id),
  foreign key (business_id, customer_id) references customers (business_id, id) on delete cascade
);
-- GET /customers/{id}/notes: newest first, keyset (created_at, id).
create index customer_notes_list_idx on customer_notes (business_id, customer_id, created_at desc, id desc);

-- GET /customers?attr.<key>=<value>: `attributes @> {...}`, the business by a recheck (or a
-- BitmapAnd with customers_business_idx where that is cheaper). A (business_id, attributes) GIN
-- costs more than it saves: each business's id is one huge posting list.
create index customers_attributes_idx on customers using gin (attributes jsonb_path_ops) where merged_into is null;
-- The CSV import's upsert by e-mail (case-insensitive) within the business.
create index customers_business_email_lower_idx on customers (business_id, lower(email))
  where email is not null and merged_into is null;

-- Identity verification: HMAC-SHA256(secret, external_id or e-mail) signs an identified visitor.
-- Encrypted like channel secrets; null until made (new widgets get one; older ones on rotate).
alter table widgets add column identity_secret_encrypted text;
