-- Two-factor sign-in (issue #21 item 7): TOTP (RFC 6238) with recovery codes, optional per user
-- and required per business by its owner (core/commands/two-factor.ts, docs/decisions.md#two-factor-sign-in).
-- The secrets are sealed with CONFIG_ENCRYPTION_KEY (core/crypto.ts), never stored in clear:
--   two_factor_pending_secret  a secret handed out by setup, until a code from it turns 2FA on;
--   two_factor_secret          the secret in force (null: two-factor is off);
--   two_factor_last_step       the last 30-second step whose code was accepted: each code works once;
--   two_factor_recovery_hashes SHA-256 of each unused recovery code (a used one is removed).
alter table users
  add column two_factor_secret text,
  add column two_factor_pending_secret text,
  add column two_factor_enabled_at timestamptz,
  add column two_factor_last_step bigint not null default 0,
  add column two_factor_recovery_hashes bytea[] not null default '{}';
alter table users add constraint users_two_factor_enabled_check
  check ((two_factor_secret is null) = (two_factor_enabled_at is null));
-- The owner's switch: members without two-factor may only set it up (or leave) before using the business.
alter table businesses add column require_two_factor boolean not null default false;
