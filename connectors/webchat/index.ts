/**
 * The business's built-in web chat: Parley itself is the platform. Nothing to register, no
 * webhook; a reply is delivered by being stored (the chat reads it from Parley).
 */
import type { Connector } from '../types.ts';

const webchat: Connector = {
  type: 'webchat',
  label: 'Web chat',
  icon: { color: '#6B7280', path: 'M4 5h16v10H9l-5 4z' },
  titleField: 'name',
  internal: true,
  config: [{ key: 'name', required: false, label: 'Name' }],
  duplicateAccountMessage: 'This account is already connected to a channel',
  setup: { intro: 'Every workspace has a built-in web chat channel: it needs no setup.', steps: [] },
  send: async () => ({ externalId: null }),
};

export default webchat;
