/**
 * Usage against the plan's limits, and upgrading through Stripe Checkout (and its return page).
 * On a server without billing the operator sets plans: no upgrade is offered.
 */
import { useEffect } from 'preact/hooks';
import { api } from '../api.ts';
import { currentLocation } from '../router.ts';
import { can } from '../session.ts';
import type { PlanInfo } from '../types.ts';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { useLoad } from '../ui/useLoad.ts';
import { Section } from './Section.tsx';

const UPGRADES = [
  { plan: 'mini', name: 'Mini', pitch: 'Every channel, 3 agents, 25 articles, AI auto-reply.' },
  { plan: 'pro', name: 'Pro', pitch: '100 channels, 6 agents, 1,000 articles, 50,000 messages a month.' },
] as const;
const RANK = { Free: 0, Mini: 1, Pro: 2 } as const;

function Meter({ label, used, limit }: { label: string; used: number; limit: number }) {
  const share = limit > 0 ? Math.min(100, (used / limit) * 100) : 100;
  return (
    <div class="meter">
      <div class="meter-top">
        <span>{label}</span>
        <span class="muted">
          {used.toLocaleString()} / {limit.toLocaleString()}
        </span>
      </div>
      <div class="meter-bar" role="meter" aria-label={label} aria-valuenow={used} aria-valuemin={0} aria-valuemax={limit}>
        <span style={{ width: `${share}%` }} class={share >= 90 ? 'full' : ''} />
      </div>
    </div>
  );
}

export function Plan() {
  const { data, error, reload } = useLoad(() => api.get<PlanInfo>('/api/v1/business/plan'));
  const checkout = currentLocation.value.query.get('checkout');
  // Back from Stripe: the upgrade lands when Stripe's confirmation reaches Parley, usually within seconds.
  useEffect(() => {
    if (checkout !== 'success') return;
    const timer = setInterval(() => void reload(), 3000);
    const stop = setTimeout(() => clearInterval(timer), 30_000);
    return () => (clearInterval(timer), clearTimeout(stop));
  }, [checkout]);
  const upgrade = useAction(async (plan: string) => {
    const { url } = await api.get<{ url: string }>(`/api/v1/billing/checkout-url?plan=${plan}`);
    location.assign(url);
  });
  return (
    <Section title={data && !data.billing ? 'Plan' : 'Plan & billing'} error={error} loading={!data}>
      {checkout === 'success' && <Notice kind="success">Thank you! Your payment went through; the new plan applies as soon as Stripe confirms it.</Notice>}
      {checkout === 'cancelled' && <Notice kind="info">Checkout was cancelled: nothing was charged.</Notice>}
      {data && (
        <>
          <div class="card stack">
            <div class="card-row">
              <div class="grow">
                <div class="muted small">Current plan</div>
                <div class="plan-name">{data.plan}</div>
              </div>
            </div>
            <Meter label="Messages this month" used={data.usage.messages_this_month} limit={data.limits.max_messages_per_month} />
            <Meter label="Teammates besides the owner" used={data.usage.agents} limit={data.limits.agents} />
            <Meter label="Channels" used={data.usage.channels} limit={data.limits.channels} />
            <Meter label="Knowledge base articles" used={data.usage.kb_articles} limit={data.limits.kb_articles} />
            <p class="small muted">AI auto-reply: {data.limits.ai_auto_reply ? 'included' : 'not included'}</p>
          </div>
          {!data.billing && (
            <p class="small muted">
              This server's operator sets the plan of every workspace; there is nothing to buy. To change it, the operator runs{' '}
              <code>parley business plan</code> or sets <code>PLAN_WITHOUT_BILLING</code>.
            </p>
          )}
          <div class="plans">
            {UPGRADES.filter((u) => data.billing && RANK[u.name] > RANK[data.plan]).map((u) => (
              <div class="card stack">
                <div class="plan-name">{u.name}</div>
                <p class="small muted">{u.pitch}</p>
                {can('billing.checkout') ? (
                  <button class="btn primary" disabled={upgrade.busy} onClick={() => upgrade.run(u.plan)}>
                    Upgrade to {u.name}
                  </button>
                ) : (
                  <p class="small muted">Ask the workspace owner to upgrade.</p>
                )}
              </div>
            ))}
          </div>
          {data.billing && data.plan === 'Pro' && <p class="muted small">You are on Pro, the largest plan.</p>}
          <Notice>{upgrade.error}</Notice>
        </>
      )}
    </Section>
  );
}
