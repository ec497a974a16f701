-- CSAT tokens (issue #36 item 3, docs/decisions.md#sla-targets-and-csat).
--
-- A member must never hold a usable rating token: the question's stored message is the question
-- alone, and the link to /csat/{token} is added to the text only as the delivery sends it
-- (core/commands/delivery-drain.ts). Questions asked before this migration carried the link in
-- their stored content, read by every member in the thread and in search: it is taken out here.
--
-- A conversation reopened and resolved again while its question is unanswered is asked again:
-- the new question replaces the old one (a new token; the earlier link stops working). One that
-- was rated is never asked again (one rating per conversation).

create or replace function conversation_status_arm() returns trigger language plpgsql as $$
begin
  perform sla_arm(new.business_id, new.id);
  if new.status = 'resolved'
     and exists (select 1 from csat_settings s where s.business_id = new.business_id and s.enabled)
     and not exists (select 1 from csat_surveys v where v.business_id = new.business_id and v.conversation_id = new.id and v.rating is not null) then
    perform graphile_worker.add_job(
      identifier => 'csat_request',
      payload => json_build_object('conversation_id', new.id::text),
      job_key => 'csat:' || new.id::text
    );
  end if;
  return null;
end;
$$;

update messages m set content = v.question
from csat_surveys v
where v.message_id = m.id and m.sender_type = 'system' and m.content <> v.question;
