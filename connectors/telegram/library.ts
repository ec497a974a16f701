/** telegraf, loaded when a Telegram channel is first used (see core/lazy-module.ts). */
import { lazyModule } from '../../core/lazy-module.ts';

export const telegraf = lazyModule(() => import('telegraf'));
