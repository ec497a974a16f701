-- A time-ordered UUID (RFC 9562 version 7): 48 bits of Unix milliseconds, then random bits, so
-- ids made later sort later (domain_events' order and keyset paging). PostgreSQL 18 has uuidv7().
create or replace function uuid_v7() returns uuid
language sql volatile parallel safe as $$
  select encode(
    set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing substring(int8send((extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1),
    'hex')::uuid
$$;
