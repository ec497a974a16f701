/** twitter-api-v2, loaded when an X channel is first used (see core/adapters/lazy-module.ts). */
import { lazyModule } from '../../core/adapters/lazy-module.ts';

export const twitterApi = lazyModule(() => import('twitter-api-v2'));
