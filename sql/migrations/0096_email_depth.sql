-- E-mail in depth (docs/decisions.md#e-mail-in-depth).
-- messages.html: a customer mail's HTML part, sanitized when parsed (lib/email-html.ts), remote
-- images disarmed; the plain text stays in `content`.
-- messages.email: what only e-mail has, per message: {to, cc} of a customer's mail; {cc, bcc,
-- signature} of a reply; {forward: {to, message_ids}} of a forward; remote_images (blocked count).
alter table messages add column html text, add column email jsonb;
alter table messages add constraint messages_html_length check (html is null or length(html) <= 524288);
-- The member's own signature, appended to their e-mail replies (before the channel's).
alter table team_members add column email_signature text;
alter table team_members add constraint team_members_email_signature_length check (email_signature is null or length(email_signature) <= 2000);
