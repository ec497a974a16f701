/** twitter-api-v2, loaded when an X channel is first used (see lib/lazy-module.ts). */
import { lazyModule } from '../../lib/lazy-module.ts';

export const twitterApi = lazyModule(() => import('twitter-api-v2'));
