-- The login lockout also counts failures per client address across e-mails, and prunes old
-- failures of anyone (core/domain/accounts/login-throttle.ts): an index for each lookup.
create index login_failures_address_idx on login_failures (ip, at);
create index login_failures_at_idx on login_failures (at);
