create or replace function conversation_default_team()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  if new.team_id is null and new.channel_id is not null then
    select ch.default_team_id into new.team_id from channels ch where ch.id = new.channel_id and ch.business_id = new.business_id;
  end if;
  return new;
end;
$function$;

drop trigger if exists conversations_default_team on conversations;
CREATE TRIGGER conversations_default_team BEFORE INSERT ON conversations FOR EACH ROW EXECUTE FUNCTION conversation_default_team();
