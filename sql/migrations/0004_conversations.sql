-- Customer list and search: newest first by number, and substring search over name, e-mail
-- and phone (ILIKE '%q%'), served by trigram indexes where pg_trgm can be installed.

create index customers_business_number_idx on customers (business_id, number desc);

-- Inbox filter "unassigned" and by channel type, newest activity first.
create index conversations_business_channel_type_idx on conversations (business_id, channel_type, updated_at desc, id desc);

do $$
begin
  if exists (select 1 from pg_available_extensions where name = 'pg_trgm') then
    create extension if not exists pg_trgm;
    create index customers_name_trgm_idx on customers using gin (name gin_trgm_ops);
    create index customers_email_trgm_idx on customers using gin (email gin_trgm_ops);
    create index customers_phone_trgm_idx on customers using gin (phone gin_trgm_ops);
  end if;
exception when insufficient_privilege then
  -- Without the extension the search still works, by scanning the business's customers.
  raise notice 'pg_trgm not installed (insufficient privilege): customer search runs without trigram indexes';
end $$;
