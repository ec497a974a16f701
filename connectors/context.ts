/** The connectors' view of the configuration: platform base URLs and the public URL. */
import type { Config } from '../core/config.ts';
import type { ConnectorContext } from './types.ts';

export function connectorContext(config: Config): ConnectorContext {
  return {
    urls: {
      telegram: config.TELEGRAM_API_URL,
      metaGraph: config.META_GRAPH_URL,
      instagramGraph: config.INSTAGRAM_GRAPH_URL,
      twilio: config.TWILIO_API_URL,
      x: config.X_API_URL,
    },
    publicUrl: config.publicUrl,
    allowPrivateHosts: config.ALLOW_PRIVATE_HOSTS,
  };
}
