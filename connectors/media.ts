/**
 * Downloading what a customer sent (fetch_attachment): each platform's way of serving media,
 * behind one shape. A download answers headers first and streams its body, so the worker can
 * refuse a file over the size limit before reading it and never holds one in memory whole.
 *
 * URLs that arrive in a webhook (Twilio MediaUrl, Instagram's CDN links) are fetched only on the
 * platform's own hosts, so a forged webhook cannot send the worker into the local network; the
 * channel's credentials go only to the platform's API host.
 */
import { ConnectorError, type MediaDownload } from './types.ts';

export type { MediaDownload };
import { httpStatusError, networkError, parseRetryAfter, readBody } from './http-errors.ts';

/** Upper bound for the platform to start answering. */
const DOWNLOAD_TIMEOUT_MS = 60_000;

function filenameOf(disposition: string | null): string | undefined {
  if (!disposition) return undefined;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  if (star) {
    try {
      return decodeURIComponent(star[1].trim());
    } catch {
      // fall through to the plain name
    }
  }
  return /filename="?([^";]+)"?/i.exec(disposition)?.[1];
}

/**
 * GETs a media URL with the given headers. Non-2xx: transient for 5xx/429/408, permanent
 * otherwise, with the platform's message when its body has one.
 */
export async function downloadMedia(
  platform: string,
  url: string,
  headers: Record<string, string> = {},
  describe?: (body: unknown) => string | undefined,
): Promise<MediaDownload> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('timed out')), DOWNLOAD_TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetch(url, { headers, signal: controller.signal, redirect: 'follow' });
  } catch (error) {
    throw networkError(platform, error);
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok || !response.body) {
    const body = await readBody(response);
    const message = describe?.(body) ?? (typeof body === 'string' ? body.slice(0, 300) : undefined);
    throw httpStatusError(platform, response.status, message, parseRetryAfter(response.headers.get('retry-after')));
  }
  const length = Number(response.headers.get('content-length'));
  return {
    body: response.body as unknown as AsyncIterable<Uint8Array>,
    contentType: response.headers.get('content-type') ?? undefined,
    size: Number.isFinite(length) && response.headers.has('content-length') ? length : undefined,
    filename: filenameOf(response.headers.get('content-disposition')),
    cancel: () => controller.abort(),
  };
}

/** Bytes already at hand (e-mail MIME parts) as a download. */
export function bufferDownload(bytes: Buffer, contentType?: string): MediaDownload {
  return {
    body: (async function* () {
      yield bytes;
    })(),
    contentType,
    size: bytes.length,
    cancel: () => {},
  };
}

/**
 * A URL from a webhook is fetched only when it is on one of the platform's hosts (https), or
 * on the configured base URL's origin (tests' fakes, a proxy); otherwise a permanent refusal.
 */
export function assertPlatformUrl(platform: string, url: string, hostSuffixes: readonly string[], baseUrl: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConnectorError('permanent', `${platform} media URL is not a URL`);
  }
  if (baseUrl) {
    try {
      if (parsed.origin === new URL(baseUrl).origin) return parsed;
    } catch {
      // an unparseable base URL allows nothing extra
    }
  }
  const host = parsed.hostname.toLowerCase();
  if (parsed.protocol === 'https:' && hostSuffixes.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))) return parsed;
  throw new ConnectorError('permanent', `Not a ${platform} media URL: ${parsed.origin}`);
}
