-- Webhook redelivery (issue #20 item 2): POST /webhooks/{id}/deliveries/{deliveryId}/redeliver
-- adds a new delivery of the same event (same event id, same body) to the endpoint. The event is
-- still dispatched once per endpoint (the unique index now covers first deliveries only).
alter table webhook_deliveries add column redelivery_of uuid;
alter table webhook_deliveries add constraint webhook_deliveries_redelivery_of_fkey
  foreign key (business_id, redelivery_of) references webhook_deliveries (business_id, id) on delete set null (redelivery_of);
drop index webhook_deliveries_event_key;
create unique index webhook_deliveries_event_key on webhook_deliveries (business_id, webhook_id, event_id) where redelivery_of is null;
