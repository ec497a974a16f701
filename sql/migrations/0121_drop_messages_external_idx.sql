-- messages_external_idx (external_id alone, migration 0002) is read by no query any more: every
-- lookup of a message by its platform id names the channel too (inbound dedupe and threading in
-- inbound_apply_message, receipts in core/commands/inbound.ts, widget messages), and those use the
-- unique messages_channel_external_idx (channel_id, external_id, business_id). It was one more
-- index entry for every inbound message and for every reply marked sent (which sets external_id,
-- so that update is never HOT and enters every index anew).
drop index messages_external_idx;
