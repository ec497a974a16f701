/** telegraf, loaded when a Telegram channel is first used (see lib/lazy-module.ts). */
import { lazyModule } from '../../lib/lazy-module.ts';

export const telegraf = lazyModule(() => import('telegraf'));
