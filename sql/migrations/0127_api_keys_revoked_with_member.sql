-- A removed member's API keys (issue #36 item 10, docs/decisions.md#api-keys). A key acts as the
-- member who made it and stops working when that membership ends (removed, left, or taken back by
-- a Google sign-in), but it stayed unrevoked: listed as active under Settings → API keys while
-- every request with it answered 401, and counted against the business's 50 keys. Ending the
-- membership now revokes its keys, in the statement that ends it, whichever path ends it.

create function team_member_revoke_api_keys() returns trigger language plpgsql as $$
begin
  update api_keys set revoked_at = now()
  where business_id = old.business_id and member_id = old.id and revoked_at is null;
  return null;
end;
$$;

create trigger team_members_revoke_api_keys after delete on team_members
  for each row execute function team_member_revoke_api_keys();

-- Keys of memberships that ended before this migration.
update api_keys k set revoked_at = now()
where k.revoked_at is null and not exists (select 1 from team_members m where m.id = k.member_id and m.business_id = k.business_id);
