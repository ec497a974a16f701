-- One channel per platform account: a routing key (WhatsApp phone_number_id, Instagram
-- account id, widget id) names exactly one channel, so a shared webhook endpoint can never
-- route one inbound message to two businesses. Replaces the plain index on the same columns.

drop index channels_routing_idx;
create unique index channels_routing_key_unique_idx on channels (type, routing_key) where routing_key is not null;
