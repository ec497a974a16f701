/** twitter-api-v2, loaded when an X channel is first used (see core/lazy-module.ts). */
import { lazyModule } from '../../core/lazy-module.ts';

export const twitterApi = lazyModule(() => import('twitter-api-v2'));
