-- An installation without billing (no Stripe) puts every workspace on the plan its setting names
-- (PLAN_WITHOUT_BILLING), except those whose plan the operator set with `parley business plan`:
-- this column remembers which. Workspaces already off Free without a Stripe subscription were
-- lifted by that command, so they keep their plan.
alter table businesses add column plan_chosen_by_operator boolean not null default false;
update businesses set plan_chosen_by_operator = true where plan <> 'Free' and stripe_subscription_id is null;
