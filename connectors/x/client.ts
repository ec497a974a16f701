/**
 * A twitter-api-v2 client for one channel's OAuth 1.0a user credentials, talking to X_API_URL
 * (a fake in tests). The library has no base-URL option and its `cloneWithPrefix()` throws, so
 * the v2 client's prefix is replaced; it always uses `https.request`, which needs an http agent
 * for a plain-http base. The library itself loads with the first client.
 */
import http from 'node:http';
import type { TwitterApiv2 } from 'twitter-api-v2';
import { twitterApi } from './library.ts';

export type XCredentials = { api_key: string; api_secret: string; access_token: string; access_token_secret: string };

export async function createXClient(config: XCredentials, baseUrl: string): Promise<TwitterApiv2> {
  const { TwitterApi } = await twitterApi.load();
  const base = baseUrl.replace(/\/+$/, '');
  const settings = base.startsWith('http://') ? { httpAgent: new http.Agent() } : {};
  const client = new TwitterApi(
    { appKey: config.api_key, appSecret: config.api_secret, accessToken: config.access_token, accessSecret: config.access_token_secret },
    settings,
  );
  const v2 = client.v2;
  (v2 as unknown as { setPrefix: (prefix: string) => void }).setPrefix(`${base}/2/`);
  return v2;
}
