/**
 * A Twilio REST client that can talk to another base URL (TWILIO_API_URL, a fake in tests):
 * twilio has no base-URL option, so its HTTP client rewrites every request's origin. It also
 * remembers the last Retry-After header, which twilio's RestException drops.
 */
import twilio from 'twilio';

type RequestOptions<TData> = Parameters<twilio.RequestClient['request']>[0] & { data?: TData };

export class BaseUrlRequestClient extends twilio.RequestClient {
  readonly baseUrl: string | undefined;
  /** The Retry-After header of the last answer, if it had one. */
  retryAfter: string | undefined;

  constructor(baseUrl: string | undefined, options: ConstructorParameters<typeof twilio.RequestClient>[0] = {}) {
    super(options);
    this.baseUrl = baseUrl?.replace(/\/+$/, '');
  }

  override async request<TData>(opts: RequestOptions<TData>) {
    const uri = this.baseUrl ? rebase(opts.uri, this.baseUrl) : opts.uri;
    const response = await super.request<TData>({ ...opts, uri });
    const header = (response.headers as Record<string, unknown> | undefined)?.['retry-after'];
    this.retryAfter = typeof header === 'string' ? header : undefined;
    return response;
  }
}

/** Keeps Twilio's path and query, replaces its scheme and host (every Twilio host: api, messaging, …). */
function rebase(uri: string, baseUrl: string): string {
  const url = new URL(uri);
  return `${baseUrl}${url.pathname}${url.search}`;
}

export type TwilioConfig = { account_sid: string; auth_token: string };

/** A Twilio client for one channel's credentials; `httpClient` is returned to read Retry-After after a failure. */
export function createTwilioClient(config: TwilioConfig, baseUrl: string | undefined): { client: twilio.Twilio; httpClient: BaseUrlRequestClient } {
  // Twilio gives a webhook 15 s; a send that hangs longer than that is better retried.
  const httpClient = new BaseUrlRequestClient(baseUrl, { timeout: 15_000 });
  const client = twilio(config.account_sid, config.auth_token, { httpClient });
  return { client, httpClient };
}
