/** A channel type's small recognisable icon, as its connector draws it (no icon font to download). */
import { channelLabel, channelTypeInfo } from '../channel-types.ts';

/** A speech bubble in grey: a type whose description has not arrived (or has no icon). */
const NEUTRAL = { color: '#6B7280', path: 'M4 5h16v10H9l-5 4z' };

export function ChannelIcon({ type, size = 16 }: { type: string; size?: number }) {
  const icon = channelTypeInfo(type)?.icon ?? NEUTRAL;
  const label = channelLabel(type);
  return (
    <svg class="channel-icon" viewBox="0 0 24 24" width={size} height={size} role="img" aria-label={label}>
      <title>{label}</title>
      <path d={icon.path} fill="none" stroke={icon.color} stroke-width="2" stroke-linecap="round" stroke-linejoin="round" />
    </svg>
  );
}
