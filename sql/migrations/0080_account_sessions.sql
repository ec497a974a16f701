-- Sessions a user can end all at once (issue #21 items 1 and 8). Every access token carries the
-- user's token generation when it was issued (claim `gen`); the auth check accepts only the
-- current one. Password reset and change, "sign out everywhere" and linking Google to an
-- account whose e-mail was never verified move it on, so every earlier token stops working at
-- once on every node. Tokens issued before this migration carry no `gen` and count as 0.
alter table users add column token_generation integer not null default 0;
