/** A connector's view of the configuration: its own platform base URL and the public URL. */
import type { Config } from '../../config.ts';
import type { AnyConnector, ConnectorContext } from '../../../connectors/types.ts';

export function connectorContext(config: Config, connector: AnyConnector): ConnectorContext {
  return {
    baseUrl: (connector.baseUrl && config.platformUrls[connector.baseUrl.env]) ?? '',
    publicUrl: config.publicUrl,
    allowPrivateHosts: config.ALLOW_PRIVATE_HOSTS,
  };
}
