create or replace function inbound_apply_messages(p_business_id uuid, p_channel_id uuid, p_channel_type text, p_messages jsonb)
 RETURNS TABLE(idx integer, applied_message_id uuid, applied_conversation_id uuid, opened_conversation boolean)
 LANGUAGE plpgsql
AS $function$
declare
  v_message jsonb;
  v_index integer := 0;
begin
  for v_message in select value from jsonb_array_elements(p_messages) loop
    return query
      select v_index, a.applied_message_id, a.applied_conversation_id, a.opened_conversation
      from inbound_apply_message(
        p_business_id, p_channel_id, p_channel_type,
        v_message->'from'->>'platformUserId', coalesce(v_message->'from'->>'name', ''),
        v_message->'from'->>'email', v_message->'from'->>'phone',
        v_message->>'externalId', v_message->>'text', coalesce(v_message->'attachments', '[]'::jsonb),
        v_message->>'subject',
        case when jsonb_typeof(v_message->'references') = 'array'
          then array(select jsonb_array_elements_text(v_message->'references')) end
      ) as a;
    v_index := v_index + 1;
  end loop;
end;
$function$;
