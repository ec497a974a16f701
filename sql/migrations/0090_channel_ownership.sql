-- A platform account (bot id, phone number, account id) is exclusive to a channel only once that
-- channel's registration proved it holds the account (the platform accepted its credentials for
-- it): an unproven, inactive or failed channel blocks nobody. Before, the key was claimed when a
-- channel was created, so anyone could claim another business's public bot id or number with
-- made-up credentials and lock its owner out. Channels that hold a key today keep it (proven).
alter table channels add column routing_proven boolean not null default false;
update channels set routing_proven = true where routing_key is not null;

drop index channels_routing_key_unique_idx;
create unique index channels_routing_key_unique_idx on channels (type, routing_key)
  where routing_key is not null and routing_proven;
-- Unproven channels of an account, found when one proves it (and by webhook routing).
create index channels_routing_key_idx on channels (type, routing_key) where routing_key is not null;
