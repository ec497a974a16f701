/** Channel names and small recognisable icons (drawn here: no icon font to download). */
import type { ChannelType } from '../types.ts';

export const CHANNEL_LABELS: Record<ChannelType, string> = {
  webchat: 'Web chat',
  widget: 'Website widget',
  email: 'E-mail',
  whatsapp: 'WhatsApp',
  telegram: 'Telegram',
  instagram: 'Instagram',
  x: 'X',
  sms: 'SMS',
};

const COLORS: Record<ChannelType, string> = {
  webchat: '#6B7280',
  widget: '#7650FF',
  email: '#2563EB',
  whatsapp: '#16A34A',
  telegram: '#0EA5E9',
  instagram: '#DB2777',
  x: '#111827',
  sms: '#EA580C',
};

const PATHS: Record<ChannelType, string> = {
  webchat: 'M4 5h16v10H9l-5 4z',
  widget: 'M4 5h16v10H9l-5 4z M8 9h8 M8 12h5',
  email: 'M3 6h18v12H3z M3 7l9 6 9-6',
  whatsapp: 'M12 3a9 9 0 0 0-7.8 13.5L3 21l4.6-1.2A9 9 0 1 0 12 3z M9 8c0 4 3 7 7 7',
  telegram: 'M3 11l18-7-3 16-6-5-3 4v-6l9-7-11 6z',
  instagram: 'M5 3h14a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z M12 8a4 4 0 1 0 0 8 4 4 0 0 0 0-8z M17 6.5v.01',
  x: 'M4 4l16 16 M20 4L4 20',
  sms: 'M5 3h14v18H5z M9 18h6',
};

export function ChannelIcon({ type, size = 16 }: { type: ChannelType; size?: number }) {
  return (
    <svg class="channel-icon" viewBox="0 0 24 24" width={size} height={size} role="img" aria-label={CHANNEL_LABELS[type]}>
      <title>{CHANNEL_LABELS[type]}</title>
      <path d={PATHS[type]} fill="none" stroke={COLORS[type]} stroke-width="2" stroke-linecap="round" stroke-linejoin="round" />
    </svg>
  );
}
