create or replace function messages_move_reply_window()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  update conversations c set reply_window_expires_at = new.created_at + interval '24 hours'
  where c.id = new.conversation_id and c.channel_type = 'whatsapp'
    and (c.reply_window_expires_at is null or c.reply_window_expires_at < new.created_at + interval '24 hours');
  return null;
end;
$function$;

drop trigger if exists messages_reply_window on messages;
CREATE TRIGGER messages_reply_window AFTER INSERT ON messages FOR EACH ROW WHEN ((new.sender_type = 'customer'::text)) EXECUTE FUNCTION messages_move_reply_window();
