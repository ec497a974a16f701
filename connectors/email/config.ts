/**
 * The e-mail channel's config: SMTP to send, optional IMAP to receive (without it, mail arrives
 * through the raw-MIME webhook). Checked by core/domain/channels/channel-config.ts from the field specs in
 * index.ts: every value a string, ports included.
 */
export type EmailConfig = {
  address: string;
  smtp_host: string;
  smtp_port: string;
  smtp_user: string;
  smtp_password: string;
  imap_host?: string;
  /** Default 993 once imap_host is set. */
  imap_port?: string;
  imap_user?: string;
  imap_password?: string;
  /** Appended to every reply and forward, after the agent's own signature (docs/decisions.md#e-mail-in-depth). */
  signature?: string;
};

export type ImapSettings = {
  /** What to connect to: the checked address once resolved (servers.ts), else the configured host. */
  host: string;
  /** The configured name when `host` is its checked address: for SNI and the certificate check. */
  servername?: string;
  port: number;
  user: string;
  password: string;
};

/** The IMAP settings, or null without `imap_host`; user and password default to the SMTP ones. */
export function imapSettings(config: EmailConfig): ImapSettings | null {
  if (!config.imap_host) return null;
  return {
    host: config.imap_host,
    port: Number(config.imap_port ?? 993),
    user: config.imap_user ?? config.smtp_user,
    password: config.imap_password ?? config.smtp_password,
  };
}
