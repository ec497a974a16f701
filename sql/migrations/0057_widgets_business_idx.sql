-- GET /api/v1/widget lists a business's widgets oldest first. The unique (business_id, domain)
-- index finds them but not in that order; this one serves the filter and the order together.
create index widgets_business_created_idx on widgets (business_id, created_at, id);
