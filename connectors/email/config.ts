/**
 * The e-mail channel's config: SMTP to send, optional IMAP to receive (without it, mail arrives
 * through the raw-MIME webhook). Ports may come as numbers or strings and are kept as strings.
 */
import { z } from 'zod';

const port = z
  .union([z.string().trim(), z.number().int()])
  .transform(String)
  .pipe(z.string().regex(/^\d{1,5}$/, 'must be a port number').refine((value) => Number(value) >= 1 && Number(value) <= 65535, 'must be a port number'));

const optionalText = z.string().trim().optional().transform((value) => (value === '' ? undefined : value));

export const emailConfigSchema = z.object({
  address: z.string().trim().toLowerCase().pipe(z.email()),
  smtp_host: z.string().trim().min(1),
  smtp_port: port,
  smtp_user: z.string().trim().min(1),
  smtp_password: z.string().min(1),
  imap_host: optionalText,
  imap_port: port.optional(),
  imap_user: optionalText,
  imap_password: z.string().optional().transform((value) => (value === '' ? undefined : value)),
});

export type EmailConfig = z.infer<typeof emailConfigSchema>;

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
