-- A run of inbound customer messages (InboundMessage JSON objects, in arrival order) applied in
-- one round trip: inbound_apply_message for each, in order. The drain sends its batches through
-- it (core/commands/inbound.ts applyMessages); a failing message fails the call, and the drain
-- then applies the batch's events one by one to find it.
-- Returns one row per stored message: its index in p_messages and inbound_apply_message's answer.
create function inbound_apply_messages(p_business_id uuid, p_channel_id uuid, p_channel_type text, p_messages jsonb)
returns table (idx integer, applied_message_id uuid, applied_conversation_id uuid, opened_conversation boolean)
language plpgsql as $$
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
        array(select jsonb_array_elements_text(coalesce(v_message->'references', '[]'::jsonb)))
      ) as a;
    v_index := v_index + 1;
  end loop;
end;
$$;
