/** Where customers reach the team: connected channels (live status) and new ones. */
import { useEffect } from 'preact/hooks';
import { api } from '../api.ts';
import { channelTypes } from '../channel-types.ts';
import { onLive, onResync } from '../live.ts';
import { linkClick } from '../router.ts';
import { can } from '../session.ts';
import type { Channel, PlanInfo } from '../types.ts';
import { Notice } from '../ui/Notice.tsx';
import { useLoad } from '../ui/useLoad.ts';
import { ChannelCard } from './ChannelCard.tsx';
import { ConnectChannel } from './ConnectChannel.tsx';
import { loadTeams } from '../inbox/teams.ts';
import { Section } from './Section.tsx';

/** "a, b and c". */
const listOf = (names: string[]) => (names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : (names[0] ?? 'other channels'));

export function Channels() {
  const { data, error, reload } = useLoad(() => api.get<Channel[]>('/api/v1/channels'));
  const plan = useLoad(() => api.get<PlanInfo>('/api/v1/business/plan'));
  // Registration runs in the background: its outcome arrives as channel_updated. The list is
  // read again whenever the live connection comes up (an outcome before it reached no socket).
  // The teams a channel's default team is picked from.
  useEffect(() => void loadTeams().catch(() => {}), []);
  useEffect(() => {
    const stops = [onLive((e) => e.name === 'channel_updated' && void reload()), onResync(() => void reload())];
    return () => stops.forEach((stop) => stop());
  }, [reload]);
  return (
    <Section
      title="Channels"
      intro={
        <>
          Every message from these channels lands in the inbox, and replies go back the same way. For your website, set up the{' '}
          <a href="/app/settings/widget" onClick={(e) => linkClick(e, '/app/settings/widget')}>
            chat widget
          </a>
          .
        </>
      }
      error={error}
      loading={!data}
    >
      <ul class="cards">
        {(data ?? []).map((c) => (
          <ChannelCard key={c.id} channel={c} onChange={reload} />
        ))}
      </ul>
      {can('channels.manage') ? (
        <>
          <h3 class="subhead">Connect a channel</h3>
          {plan.data?.plan === 'Free' && !plan.data.billing && (
            <Notice kind="info">
              The Free plan includes the website widget. To connect {listOf(channelTypes.value.filter((t) => !t.internal).map((t) => t.label))}, ask this
              server's operator to change the plan.
            </Notice>
          )}
          {plan.data?.plan === 'Free' && plan.data.billing && (
            <Notice kind="info">
              The Free plan includes the website widget.{' '}
              <a href="/app/settings/plan" onClick={(e) => linkClick(e, '/app/settings/plan')}>
                Upgrade to Mini
              </a>{' '}
              to connect {listOf(channelTypes.value.filter((t) => !t.internal).map((t) => t.label))}.
            </Notice>
          )}
          <ConnectChannel onConnected={() => void reload()} />
        </>
      ) : (
        <p class="muted small">Only the owner or an admin can connect channels.</p>
      )}
    </Section>
  );
}
