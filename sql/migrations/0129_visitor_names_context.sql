-- Website visitors: a generated name until they give theirs (looked up by name within the
-- business when choosing one), and what the widget reports of their visit (page, referrer,
-- browser and system, language, time zone, pages seen), for the agent beside the conversation.
alter table customers add column visitor_context jsonb;
-- The name Parley generated for the visitor: while `name` still equals it, the visitor has not
-- given theirs (a canned response's {{customer.name}} then takes its fallback).
alter table customers add column generated_name text;
create index customers_business_name_idx on customers (business_id, name);
