create or replace function conversations_business_durations()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
declare
  v_first boolean := tg_op = 'INSERT' or new.first_response_at is distinct from old.first_response_at or new.created_at is distinct from old.created_at;
  v_resolution boolean := tg_op = 'INSERT' or new.resolved_at is distinct from old.resolved_at or new.created_at is distinct from old.created_at;
  v_hours business_hours;
begin
  if v_first then new.first_response_business_seconds := null; end if;
  if v_resolution then new.resolution_business_seconds := null; end if;
  if (v_first and new.first_response_at is not null) or (v_resolution and new.resolved_at is not null) then
    select * into v_hours from business_hours h where h.business_id = new.business_id and h.enabled;
    if found then
      if v_first then
        new.first_response_business_seconds := business_open_seconds(v_hours.timezone, v_hours.week, v_hours.holidays, new.created_at, new.first_response_at);
      end if;
      if v_resolution then
        new.resolution_business_seconds := business_open_seconds(v_hours.timezone, v_hours.week, v_hours.holidays, new.created_at, new.resolved_at);
      end if;
    end if;
  end if;
  return new;
end
$function$;

drop trigger if exists conversations_business_durations_insert on conversations;
CREATE TRIGGER conversations_business_durations_insert BEFORE INSERT ON conversations FOR EACH ROW WHEN (((new.first_response_at IS NOT NULL) OR (new.resolved_at IS NOT NULL) OR (new.first_response_business_seconds IS NOT NULL) OR (new.resolution_business_seconds IS NOT NULL))) EXECUTE FUNCTION conversations_business_durations();

drop trigger if exists conversations_business_durations_update on conversations;
CREATE TRIGGER conversations_business_durations_update BEFORE UPDATE OF first_response_at, resolved_at, created_at ON conversations FOR EACH ROW WHEN (((old.first_response_at IS DISTINCT FROM new.first_response_at) OR (old.resolved_at IS DISTINCT FROM new.resolved_at) OR (old.created_at IS DISTINCT FROM new.created_at))) EXECUTE FUNCTION conversations_business_durations();
