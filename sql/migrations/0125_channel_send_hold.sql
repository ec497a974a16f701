-- A platform that answers a send with 429 and Retry-After is asking the sender to wait: the
-- WhatsApp number, the Instagram account, the bot, the Twilio account, not the one recipient.
-- Until now only the conversation that met it waited; its channel's other conversations went on
-- sending and met the limit one after another. Now the channel is held until the time asked
-- (core/commands/delivery-drain.ts): every drain of its conversations reads the hold with its
-- next reply and comes back when it ends. Other channels are not held. Null: not held.
alter table channels add column send_held_until timestamptz;
