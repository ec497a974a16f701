/**
 * The mail servers an e-mail channel names are tenant input: each connection resolves the name
 * once, refuses internal addresses (lib/host-safety.ts: loopback and private unless
 * ALLOW_PRIVATE_HOSTS, link-local and unspecified always), and connects to the address it
 * checked, so a DNS answer changed in between (rebinding) cannot redirect it. TLS still
 * verifies the certificate against the configured name.
 */
import { checkHost, HostRefusedError } from '../../lib/host-safety.ts';
import { ConnectorError, type ConnectorContext } from '../types.ts';

export type MailServer = {
  /** The checked IP address to connect to. */
  address: string;
  /** The configured name, for SNI and certificate checks; undefined when the config gave an IP. */
  servername?: string;
};

/**
 * Resolves and checks one configured host. A refused address is a permanent ConnectorError
 * naming the field; a name that does not resolve is `unresolved` (permanent when registering,
 * so the channel shows why; transient when sending or polling, since DNS may come back).
 */
export async function mailServer(
  field: 'smtp_host' | 'imap_host',
  host: string,
  context: Pick<ConnectorContext, 'allowPrivateHosts'>,
  unresolved: ConnectorError['kind'],
): Promise<MailServer> {
  try {
    const checked = await checkHost(host, { allowPrivate: context.allowPrivateHosts === true });
    return { address: checked.address, servername: checked.address === checked.host ? undefined : checked.host };
  } catch (error) {
    if (!(error instanceof HostRefusedError)) throw error;
    throw new ConnectorError(error.unresolved ? unresolved : 'permanent', `${field}: ${error.message}`);
  }
}
